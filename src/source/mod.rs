//! Where samples come from. Nothing here touches the terminal.

pub mod connect;
pub mod flavor;
pub mod live;
