//! A TCP proxy of our own between innodebt and a private server, to fake a server (or a
//! network) that stalls without going away.
//!
//! - [`StallProxy::pause`] stops forwarding in both directions and closes nothing: the peers
//!   see a server that has stopped answering. Connections made while paused are accepted
//!   and held the same way (a connect attempt then waits for the handshake).
//! - [`StallProxy::resume`] goes on forwarding. Held bytes are **delivered, in order**, not
//!   dropped: at most one buffer per direction was read off a socket before the pump saw the
//!   pause, the rest waited in the kernel's socket buffers.
//! - [`StallProxy::kill_connections`] cuts every open connection (a network drop).
//!
//! Plain std threads (two pumps per connection), so it works from sync and async tests alike.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

#[derive(Default)]
struct Shared {
    paused: Mutex<bool>,
    resumed: Condvar,
    stop: AtomicBool,
    /// Both ends of every connection, so they can be cut.
    streams: Mutex<Vec<TcpStream>>,
    accepted: AtomicU64,
    /// Bytes forwarded server → client.
    from_server: AtomicU64,
    /// Bytes forwarded client → server.
    to_server: AtomicU64,
    /// Client commands forwarded: MySQL packets with sequence number 0 (each command a
    /// client sends starts a new sequence; a multi-statement query is one).
    commands: AtomicU64,
}

impl Shared {
    /// Blocks while paused; false once the proxy is stopping.
    fn wait_if_paused(&self) -> bool {
        let mut paused = self.paused.lock().unwrap_or_else(|p| p.into_inner());
        while *paused && !self.stop.load(Ordering::SeqCst) {
            paused = self.resumed.wait(paused).unwrap_or_else(|p| p.into_inner());
        }
        !self.stop.load(Ordering::SeqCst)
    }
}

pub struct StallProxy {
    addr: SocketAddr,
    shared: Arc<Shared>,
    acceptor: Option<JoinHandle<()>>,
}

impl StallProxy {
    /// Listens on 127.0.0.1 (a free port) and forwards to 127.0.0.1:`upstream_port`.
    pub fn start(upstream_port: u16) -> StallProxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("proxy: bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("proxy: local_addr");
        let shared = Arc::new(Shared::default());
        let upstream = SocketAddr::from(([127, 0, 0, 1], upstream_port));
        let acceptor = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("stall-proxy-accept".into())
                .spawn(move || accept_loop(listener, upstream, shared))
                .expect("proxy: spawn the accept thread")
        };
        StallProxy {
            addr,
            shared,
            acceptor: Some(acceptor),
        }
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Client flags for the `innodebt` binary through the proxy (root, plain TCP).
    pub fn conn_args(&self) -> Vec<String> {
        vec![
            "-h".into(),
            "127.0.0.1".into(),
            "-P".into(),
            self.port().to_string(),
            "-u".into(),
            "root".into(),
            "--ssl-mode".into(),
            "DISABLED".into(),
        ]
    }

    pub fn pause(&self) {
        *self.shared.paused.lock().unwrap_or_else(|p| p.into_inner()) = true;
    }

    pub fn resume(&self) {
        *self.shared.paused.lock().unwrap_or_else(|p| p.into_inner()) = false;
        self.shared.resumed.notify_all();
    }

    /// Cuts every connection open now (both directions); new ones are still accepted.
    pub fn kill_connections(&self) {
        let streams = std::mem::take(
            &mut *self
                .shared
                .streams
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        );
        for s in streams {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> u64 {
        self.shared.accepted.load(Ordering::SeqCst)
    }

    /// Bytes forwarded from the server to clients so far.
    pub fn bytes_from_server(&self) -> u64 {
        self.shared.from_server.load(Ordering::SeqCst)
    }

    /// Bytes forwarded from clients to the server so far.
    pub fn bytes_to_server(&self) -> u64 {
        self.shared.to_server.load(Ordering::SeqCst)
    }

    /// Commands (round trips) clients sent through the proxy so far. Plain TCP only: a TLS
    /// session's packets are not readable here.
    pub fn commands_to_server(&self) -> u64 {
        self.shared.commands.load(Ordering::SeqCst)
    }
}

/// Reads MySQL packet headers (3-byte length, sequence number) off a byte stream cut
/// anywhere, counting the packets whose sequence number is 0.
#[derive(Default)]
struct PacketCounter {
    header: Vec<u8>,
    /// Payload bytes of the current packet still to come.
    payload_left: usize,
}

impl PacketCounter {
    fn feed(&mut self, mut bytes: &[u8], commands: &AtomicU64) {
        while !bytes.is_empty() {
            if self.payload_left > 0 {
                let n = self.payload_left.min(bytes.len());
                self.payload_left -= n;
                bytes = &bytes[n..];
                continue;
            }
            let need = 4 - self.header.len();
            let n = need.min(bytes.len());
            self.header.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
            if self.header.len() == 4 {
                let h = std::mem::take(&mut self.header);
                self.payload_left =
                    usize::from(h[0]) | usize::from(h[1]) << 8 | usize::from(h[2]) << 16;
                if h[3] == 0 {
                    commands.fetch_add(1, Ordering::SeqCst);
                }
            }
        }
    }
}

impl Drop for StallProxy {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.resume();
        self.kill_connections();
        // Wake the blocking accept so the thread sees `stop`.
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.acceptor.take() {
            let _ = t.join();
        }
    }
}

fn accept_loop(listener: TcpListener, upstream: SocketAddr, shared: Arc<Shared>) {
    for client in listener.incoming() {
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(client) = client else { continue };
        shared.accepted.fetch_add(1, Ordering::SeqCst);
        // Server down: dropping the client closes it, as a dead server would.
        let Ok(server) = TcpStream::connect(upstream) else {
            continue;
        };
        let _ = client.set_nodelay(true);
        let _ = server.set_nodelay(true);
        let clones = (
            client.try_clone(),
            server.try_clone(),
            client.try_clone(),
            server.try_clone(),
        );
        let (Ok(c_read), Ok(s_read), Ok(c_keep), Ok(s_keep)) = clones else {
            continue;
        };
        {
            let mut streams = shared.streams.lock().unwrap_or_else(|p| p.into_inner());
            streams.push(c_keep);
            streams.push(s_keep);
        }
        spawn_pump(c_read, server, Arc::clone(&shared), true);
        spawn_pump(s_read, client, Arc::clone(&shared), false);
    }
}

/// Copies `from` → `to`, holding each chunk while paused.
fn spawn_pump(mut from: TcpStream, mut to: TcpStream, shared: Arc<Shared>, to_server: bool) {
    let _ = std::thread::Builder::new()
        .name("stall-proxy-pump".into())
        .spawn(move || {
            let mut buf = vec![0u8; 16 * 1024];
            let mut packets = PacketCounter::default();
            loop {
                let n = match from.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                if !shared.wait_if_paused() || to.write_all(&buf[..n]).is_err() {
                    break;
                }
                let counter = if to_server {
                    &shared.to_server
                } else {
                    &shared.from_server
                };
                counter.fetch_add(n as u64, Ordering::SeqCst);
                if to_server {
                    packets.feed(&buf[..n], &shared.commands);
                }
            }
            // Pass the close on, as a real network path would.
            let _ = to.shutdown(Shutdown::Write);
        });
}
