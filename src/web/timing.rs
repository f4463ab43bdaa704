//! User Timing marks around the work a person waits for (image preparation, re-aggregation
//! after a γ change, the γ sweep). They show in the browser's performance panel and are what
//! `scripts/bench.py` reads; they cost two calls per measured step.

fn performance() -> Option<web_sys::Performance> {
    web_sys::window()?.performance()
}

/// Marks the start of `name`; [`end`] records the measure.
pub fn start(name: &str) {
    if let Some(p) = performance() {
        p.mark(&format!("{name}:start")).ok();
    }
}

/// Records the measure `name` from its [`start`] mark to now.
pub fn end(name: &str) {
    if let Some(p) = performance() {
        p.measure_with_start_mark(name, &format!("{name}:start"))
            .ok();
    }
}

/// Runs `f` between a start mark and its measure.
pub fn measure<T>(name: &str, f: impl FnOnce() -> T) -> T {
    start(name);
    let out = f();
    end(name);
    out
}
