//! The Leptos user interface: one component per file, state in [`state::AppState`], actions
//! (the code that does things) in [`actions`], nothing but layout in `view!`.

mod actions;
mod app;
mod backend_panel;
mod batch_panel;
mod batch_run;
mod batch_state;
mod connection;
mod connection_panel;
mod compare_panel;
mod cost_panel;
mod criterion_card;
mod doubt_notes;
mod fidelity_panel;
mod fields;
mod fleur_panel;
mod fleur_run;
mod gamma_panel;
mod gveval_panel;
mod gveval_run;
mod image_panel;
mod inputs_panel;
mod lab_app;
mod maev_inputs;
mod maev_panel;
mod maev_run;
mod meta_panel;
mod metric_select;
mod openai_batch_run;
mod overall_score;
mod results_table;
mod run_bar;
mod scatter_plot;
mod single_results;
mod state;
mod theme_toggle;
mod top_bar;

/// Installs the panic hook and mounts the one-item evaluator on `<body>`.
pub fn start() {
    install_panic_hook();
    leptos::mount::mount_to_body(app::App);
    mark_interactive();
}

/// Installs the panic hook and mounts the batch & meta-evaluation lab on `<body>`.
pub fn start_lab() {
    install_panic_hook();
    leptos::mount::mount_to_body(lab_app::LabApp);
    mark_interactive();
}

fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_crash_banner();
    }));
}

/// A User Timing mark once the page is mounted and its handlers attached, which
/// `scripts/bench.py` reads as the time to interactive.
fn mark_interactive() {
    if let Some(perf) = web_sys::window().and_then(|w| w.performance()) {
        perf.mark("hj-interactive").ok();
    }
}

/// Panics on purpose, so the end-to-end tests can prove that a panic shows the crash banner
/// (no input reaches a panic: the parsers are fuzzed and the UI has no `unwrap`). Calling it
/// from the console crashes only this tab.
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hj_crash_self_test() {
    panic!("crash self-test");
}

/// A panic must not leave a dead page without a word: show a banner that offers a reload.
/// Written with plain DOM calls because the reactive runtime may be what broke.
fn show_crash_banner() {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = document.body() else { return };
    if document.get_element_by_id("crash-banner").is_some() {
        return;
    }
    if let Ok(banner) = document.create_element("div") {
        banner.set_id("crash-banner");
        banner.set_attribute("role", "alert").ok();
        banner.set_attribute("data-testid", "crash-banner").ok();
        banner.set_text_content(Some(
            "Something went wrong inside the app. Reload the page to continue: your settings and \
             key are kept, the image and texts must be added again. (Details are in the browser \
             console.)",
        ));
        body.prepend_with_node_1(&banner).ok();
    }
}
