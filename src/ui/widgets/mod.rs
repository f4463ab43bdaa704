//! Small pieces shared by both pages: form fields, doubt notes, the metric picker, the
//! start-up's second task, the top bar, the theme toggle, and the γ axis of every plot against γ.

pub(crate) mod doubt_notes;
pub(crate) mod fields;
pub(crate) mod gamma_events;
pub(crate) mod gamma_panel;
pub(crate) mod later;
pub(crate) mod metric_select;
pub(crate) mod spoken;
pub(crate) mod theme_toggle;
pub(crate) mod top_bar;
