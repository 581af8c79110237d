//! `ps` and `/proc/PID/cmdline` show a process's arguments to every local user for as long as
//! it runs: like the mysql client, overwrite a `-pSECRET` / `--password=SECRET` with `x`s once
//! it is parsed. (A password typed at the `-p` prompt, in MYSQL_PWD or in an option file is
//! never there; `/proc/PID/environ` is readable by the owner only.)

/// Where the password starts in `arg`, when `arg` is `-pPASSWORD` or `--password=PASSWORD`.
pub fn password_at(arg: &[u8], password: &[u8]) -> Option<usize> {
    [b"-p".as_slice(), b"--password="]
        .into_iter()
        .find(|flag| arg.len() == flag.len() + password.len() && arg.starts_with(flag))
        .filter(|flag| &arg[flag.len()..] == password)
        .map(<[u8]>::len)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod process {
    use std::ffi::{CStr, c_char, c_int};
    use std::sync::atomic::{AtomicIsize, AtomicPtr, Ordering};

    static ARGC: AtomicIsize = AtomicIsize::new(0);
    static ARGV: AtomicPtr<*mut c_char> = AtomicPtr::new(std::ptr::null_mut());

    /// glibc calls `.init_array` entries with the process's own argc and argv (the Rust
    /// standard library takes its arguments the same way).
    #[used]
    #[unsafe(link_section = ".init_array")]
    static CAPTURE: extern "C" fn(c_int, *mut *mut c_char, *mut *mut c_char) = capture;

    extern "C" fn capture(argc: c_int, argv: *mut *mut c_char, _env: *mut *mut c_char) {
        ARGC.store(argc as isize, Ordering::Relaxed);
        ARGV.store(argv, Ordering::Relaxed);
    }

    pub fn hide_password(password: &str) {
        let argv = ARGV.load(Ordering::Relaxed);
        if argv.is_null() || password.is_empty() {
            return;
        }
        for i in 1..ARGC.load(Ordering::Relaxed) {
            // SAFETY: argv holds argc pointers to NUL-terminated strings that live as long
            // as the process; nothing else reads or writes them after std copied them.
            let arg = unsafe { *argv.offset(i) };
            if arg.is_null() {
                continue;
            }
            // SAFETY: as above; `len` stops before the NUL, which stays.
            let bytes = unsafe {
                let len = CStr::from_ptr(arg).to_bytes().len();
                std::slice::from_raw_parts_mut(arg.cast::<u8>(), len)
            };
            if let Some(start) = super::password_at(bytes, password.as_bytes()) {
                bytes[start..].fill(b'x');
            }
        }
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub use process::hide_password;

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn hide_password(_password: &str) {}

#[cfg(test)]
mod tests {
    use super::password_at;

    #[test]
    fn finds_only_the_password_flags() {
        assert_eq!(password_at(b"-pS3cr3t", b"S3cr3t"), Some(2));
        assert_eq!(password_at(b"--password=S3cr3t", b"S3cr3t"), Some(11));
        assert_eq!(password_at(b"-pS3cr3tX", b"S3cr3t"), None);
        assert_eq!(password_at(b"-PS3cr3t", b"S3cr3t"), None);
        assert_eq!(password_at(b"S3cr3t", b"S3cr3t"), None);
    }
}
