//! The Leptos user interface, grouped by page and by metric: `evaluator/` (the one-item page),
//! `lab/` (the batch & meta-evaluation page), `metrics/<metric>/` (each metric's result panel
//! and runner; `metrics/mod.rs` the UI registry), `run/` (what the pages and the metrics share:
//! sending, retry, cancel, explain in `run/runner.rs`, the buttons' actions, the inputs and
//! the candidates), `judge/` (the judge line that folds the fidelity and the backend; both
//! pages), `backend/` (provider, key, connection check), `lazy.rs` (chunks fetched on first
//! use), `widgets/` (fields, top bar, metric picker, γ panel). One component per file, state in
//! `state::AppState`, nothing but layout in `view!`.

// Grouped by page and by metric. A component names another by its real path
// (`crate::ui::run::runner`, `crate::ui::metrics::fleur::panel`): no flat aliases here
// (`scripts/structure.py --check` refuses them), so a path says where a thing lives.
pub(crate) mod backend;
pub(crate) mod evaluator;
pub(crate) mod judge;
pub(crate) mod lab;
pub(crate) mod lazy;
pub(crate) mod metrics;
pub(crate) mod progress;
pub(crate) mod run;
pub(crate) mod site;
pub(crate) mod state;
pub(crate) mod widgets;

/// Installs the panic hook and mounts the one-item evaluator on `<body>`.
pub fn start() {
    install_panic_hook();
    if site::refuse_frame() {
        return;
    }
    // The site file first: it chooses the defaults the page starts with (built into the page,
    // so no request; a page the build did not finish fetches it, the static shell up meanwhile).
    wasm_bindgen_futures::spawn_local(async {
        site::load("site.json").await;
        // A task of its own for the mount: the wasm's compile and start-up end in the one
        // before (issue 43: no long task).
        crate::web::fetch::sleep(0, None).await;
        remove_static_shell();
        if !site::embed() {
            // The first screen now, the rest in the next task (widgets/later.rs).
            leptos::mount::mount_to_body(evaluator::app::App);
        } else if lazy::loading(evaluator::embed::mount()).await.is_err() {
            show_crash_banner();
        } else {
            widgets::later::mounted(|| ());
        }
        mark_interactive();
        // Then, with the page up, whether the owner edited the host's site.json since the build.
        site::revalidate().await;
    });
}

/// Installs the panic hook and mounts the batch & meta-evaluation lab on `<body>`.
pub fn start_lab() {
    install_panic_hook();
    if site::refuse_frame() {
        return;
    }
    wasm_bindgen_futures::spawn_local(async {
        site::load("../site.json").await;
        leptos::mount::mount_to_body(lab::lab_app::LabApp);
        mark_interactive();
        widgets::later::mounted(|| ());
        site::revalidate().await;
    });
}

/// The evaluator's `index.html` holds a static copy of its header and panels, shown while the
/// wasm downloads and already taking an image, the text and Evaluate; the live page replaces
/// it, and the shell's own script (`src/web/shell.js`) replays what the visitor entered onto
/// the live page's fields once this has run.
fn remove_static_shell() {
    if let Some(shell) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id("static-shell"))
    {
        shell.remove();
    }
}

fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_crash_banner();
    }));
}

/// A User Timing mark once the first screen is mounted and its handlers attached (Evaluate
/// works), which `scripts/bench.py` reads as the time to interactive; `hj-mounted` follows once
/// what waited for a later task is built (`widgets/later.rs`).
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
