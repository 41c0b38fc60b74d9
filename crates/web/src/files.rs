//! The user's files on the page side: sorting what was picked or dropped into
//! trace files and config files, and handing each to the worker as a `blob:` URL.

use web_sys::{File, FileList, Url};

use crate::agent::FileRef;
use crate::fetch::js_message;

/// Files picked or dropped, sorted by what they are. Other files (a trace
/// folder's `stats.csv`, say) are left out.
#[derive(Debug, Default)]
pub struct PickedFiles {
    /// `kernelslist.g`, `.traceg` and `.traceg.xz` files.
    pub traces: Vec<File>,
    /// `.config` and `.icnt` files.
    pub configs: Vec<File>,
}

impl PickedFiles {
    /// Sorts the files of `list` (absent when the browser gave none).
    pub fn from_list(list: Option<FileList>) -> Self {
        let mut picked = PickedFiles::default();
        let Some(list) = list else { return picked };
        for file in (0..list.length()).filter_map(|i| list.get(i)) {
            let name = file.name();
            if name == "kernelslist.g" || name.ends_with(".traceg") || name.ends_with(".traceg.xz") {
                picked.traces.push(file);
            } else if name.ends_with(".config") || name.ends_with(".icnt") {
                picked.configs.push(file);
            }
        }
        picked
    }
}

/// A label for a set of files: the folder they came from when a folder was
/// picked, else the first file's name (and how many more).
pub fn label_of(files: &[File]) -> String {
    let Some(first) = files.first() else { return String::new() };
    // `webkitRelativePath` ("folder/kernelslist.g") is set when a folder was picked.
    let relative = js_sys::Reflect::get(first, &"webkitRelativePath".into()).ok().and_then(|v| v.as_string());
    if let Some((folder, _)) = relative.as_deref().and_then(|r| r.split_once('/')) {
        return folder.to_owned();
    }
    match files.len() {
        1 => first.name(),
        n => format!("{} and {} more", first.name(), n - 1),
    }
}

/// `blob:` URLs for `files`, which the worker can fetch. The caller revokes
/// them with [`revoke`] once they are no longer needed.
pub fn file_refs(files: &[File]) -> Result<Vec<FileRef>, String> {
    files
        .iter()
        .map(|file| {
            let url = Url::create_object_url_with_blob(file).map_err(|e| js_message(&e))?;
            Ok(FileRef { name: file.name(), url })
        })
        .collect()
}

/// Releases URLs made by [`file_refs`].
pub fn revoke(refs: &[FileRef]) {
    for file in refs {
        // A URL that is already gone needs no release.
        let _ = Url::revoke_object_url(&file.url);
    }
}
