//! Results that leave the page or come back to it: the gate every outside result passes
//! ([`gate`]), result files read back ([`result_file`]), share links ([`share`]), the history
//! ([`history`]), export names ([`export_name`]), the site file ([`site`]) and why storage
//! refused ([`storage_refusal`]).

pub mod export_name;
pub mod gate;
pub mod history;
pub mod result_file;
pub mod share;
pub mod site;
pub mod site_fresh;
pub mod site_suggested;
pub mod storage_refusal;
