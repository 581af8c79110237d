//! Where samples come from. Nothing here touches the terminal.

pub mod cadence;
pub mod connect;
pub mod flavor;
pub mod live;
pub mod oldest;
pub mod sessions;
