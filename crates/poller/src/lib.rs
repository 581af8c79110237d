//! The live poller: connecting to a server (`connect`), asking it on a cadence its cost
//! allows (`cadence`, `oldest`, `sessions`) and sending each tick's raw sample (`live`).
//! Nothing here touches the terminal or judges a figure.

pub mod cadence;
pub mod connect;
pub mod live;
pub mod oldest;
pub mod sessions;
