//! What the server is and says: the flavours and their formulas (`flavor`, the only place
//! that knows server differences), the raw sample a poller, replay or import produces
//! (`sample`), and pure parsers of the server's own words — SHOW ENGINE INNODB STATUS
//! (`innodb_status`), status and variable dumps (`status_dump`), the error log's last crash
//! recovery (`error_log`) and option files (`mycnf`). No network, no terminal.

pub mod blocker;
pub mod error_log;
pub mod flavor;
pub mod innodb_status;
pub mod mycnf;
pub mod sample;
pub mod status_dump;
