//! What every target shares: inputs run on a stack the size of the WASM build's, so a
//! recursion that fits native stacks but not WASM's is found here, not in production.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Mutex, OnceLock};

/// The WASM build's stack: rustc's default for wasm32 (`-z stack-size=1048576`; the built
/// module's `__stack_pointer` starts at 1048576). Fuzz builds add sanitizer redzones to every
/// frame, so passing here is a stricter test than the WASM build itself.
pub const WASM_STACK_BYTES: usize = 1 << 20;

type Job = (fn(&[u8]), Vec<u8>);

struct Worker {
    jobs: Sender<Job>,
    done: Receiver<()>,
}

/// Runs `run(data)` on one long-lived thread with a [`WASM_STACK_BYTES`] stack (a thread per
/// input would cost more than many inputs do). A panic there aborts the process, which
/// libFuzzer reports as a crash; so does a stack overflow.
pub fn on_wasm_stack(data: &[u8], run: fn(&[u8])) {
    static WORKER: OnceLock<Mutex<Worker>> = OnceLock::new();
    let worker = WORKER.get_or_init(|| {
        let (jobs, inbox) = channel::<Job>();
        let (finished, done) = channel();
        std::thread::Builder::new()
            .name("wasm-sized-stack".into())
            .stack_size(WASM_STACK_BYTES)
            .spawn(move || {
                for (run, data) in inbox {
                    run(&data);
                    if finished.send(()).is_err() {
                        return;
                    }
                }
            })
            .expect("spawn the fuzz worker thread");
        Mutex::new(Worker { jobs, done })
    });
    let worker = worker.lock().unwrap_or_else(|e| e.into_inner());
    worker.jobs.send((run, data.to_vec())).expect("the fuzz worker is alive");
    // An error here means the worker died mid-input: report it as this input's crash.
    worker.done.recv().expect("the fuzz worker finished the input");
}
