//! The worker side: the protocol between page and worker, and the reactor that
//! answers it by calling `warplab-lab`.

use futures::{SinkExt, StreamExt};
use gloo_worker::reactor::{ReactorScope, reactor};
use serde::{Deserialize, Serialize};
use warplab_lab::{WorkloadSummary, kernel_files, summarize_trace};

use crate::fetch::fetch_bytes;

/// What the page asks of the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum WorkerInput {
    /// Read the bundled sample trace whose directory is at `dir_url`.
    LoadSample {
        /// The sample's name, used as the workload label.
        name: String,
        /// Absolute URL of the directory holding its `kernelslist.g`, ending in `/`.
        dir_url: String,
    },
}

/// What the worker answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum WorkerOutput {
    /// The trace was read.
    Loaded(WorkloadSummary),
    /// The trace could not be fetched or parsed; the message names file and line.
    Failed(String),
}

/// The reactor the worker binary registers: one answer per input, until the
/// page goes away.
#[reactor]
pub async fn LabReactor(mut scope: ReactorScope<WorkerInput, WorkerOutput>) {
    while let Some(input) = scope.next().await {
        let output = match input {
            WorkerInput::LoadSample { name, dir_url } => load_sample(&name, &dir_url).await,
        };
        if scope.send(output).await.is_err() {
            break;
        }
    }
}

async fn load_sample(name: &str, dir_url: &str) -> WorkerOutput {
    match read_trace_dir(name, dir_url).await {
        Ok(summary) => WorkerOutput::Loaded(summary),
        Err(message) => WorkerOutput::Failed(message),
    }
}

/// Fetches `kernelslist.g` and the kernel files it names from `dir_url`, then
/// hands them to the lab.
async fn read_trace_dir(name: &str, dir_url: &str) -> Result<WorkloadSummary, String> {
    let list_bytes = fetch_bytes(&format!("{dir_url}kernelslist.g")).await?;
    let list = String::from_utf8(list_bytes).map_err(|_| format!("{dir_url}kernelslist.g: not valid UTF-8"))?;
    let mut files = Vec::new();
    for file in kernel_files(&list).map_err(|e| format!("{dir_url}{e}"))? {
        let bytes = fetch_bytes(&format!("{dir_url}{file}")).await?;
        files.push((file, bytes));
    }
    let mut open = |wanted: &str| -> Result<Box<dyn std::io::Read>, String> {
        let found = files.iter().position(|(file, _)| file == wanted);
        let bytes = found.map(|index| std::mem::take(&mut files[index].1)).ok_or_else(|| "not fetched".to_owned())?;
        Ok(Box::new(std::io::Cursor::new(bytes)))
    };
    summarize_trace(name, &list, &mut open).map_err(|e| format!("{dir_url}{e}"))
}
