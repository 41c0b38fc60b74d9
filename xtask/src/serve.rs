//! `cargo xtask serve`: build the app and serve `dist/` on 127.0.0.1.
//!
//! A small static-file server on std's `TcpListener`, one thread per
//! connection: enough for one developer's browser, and no extra tool to
//! install. It serves `.wasm` as `application/wasm`, which streaming
//! compilation requires.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::shell::Result;
use crate::{dist, tools};

const DEFAULT_PORT: u16 = 8080;

/// Builds `dist/` and serves it until interrupted.
pub fn run(args: &[String]) -> Result<ExitCode> {
    let port = match args {
        [] => DEFAULT_PORT,
        [flag, port] if flag == "--port" => {
            port.parse().map_err(|_| format!("--port: `{port}` is not a port number"))?
        }
        _ => return Err("usage: cargo xtask serve [--port N]".to_owned()),
    };
    tools::ensure_wasm_target()?;
    tools::ensure_wasm_bindgen()?;
    let dist = dist::build()?;
    let listener = TcpListener::bind(("127.0.0.1", port)).map_err(|e| format!("binding 127.0.0.1:{port}: {e}"))?;
    println!("warplab is served on http://127.0.0.1:{port}/ (Ctrl-C stops it)");
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let dist = dist.clone();
        std::thread::spawn(move || {
            // A client that hangs up mid-response is not our problem.
            let _ = respond(stream, &dist);
        });
    }
    Ok(ExitCode::SUCCESS)
}

/// The headers that make the page cross-origin isolated, so the worker may
/// share its wasm memory with its threads and `worker.js` picks the threaded
/// build (docs/hosting.md).
const ISOLATION: &str = "Cross-Origin-Opener-Policy: same-origin\r\nCross-Origin-Embedder-Policy: require-corp\r\n";

fn respond(mut stream: TcpStream, dist: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Skip the headers: nothing in them changes the answer.
    let mut header = String::new();
    while reader.read_line(&mut header)? > 2 {
        header.clear();
    }
    let mut words = request_line.split_whitespace();
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or("/"));
    let (status, content_type, body) = match (method, resolve(dist, target)) {
        ("GET" | "HEAD", Some(path)) => match std::fs::read(&path) {
            Ok(body) => ("200 OK", content_type(&path), body),
            Err(_) => ("404 Not Found", "text/plain", b"not found\n".to_vec()),
        },
        ("GET" | "HEAD", None) => ("404 Not Found", "text/plain", b"not found\n".to_vec()),
        _ => ("405 Method Not Allowed", "text/plain", b"only GET and HEAD\n".to_vec()),
    };
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\n{ISOLATION}Connection: close\r\n\r\n",
        body.len()
    )?;
    if method != "HEAD" {
        stream.write_all(&body)?;
    }
    stream.flush()
}

/// Maps a request target to a file under `dist`, refusing anything that could
/// leave it. A directory means its `index.html`.
fn resolve(dist: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let mut file = dist.to_path_buf();
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        if segment == ".." || segment.contains('\\') || segment.contains('%') {
            return None;
        }
        file.push(segment);
    }
    if file.is_dir() {
        file.push("index.html");
    }
    file.is_file().then_some(file)
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js") | Some("mjs") => "text/javascript; charset=utf-8",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("md") | Some("g") | Some("traceg") | Some("config") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_stay_inside_dist() {
        let dist = crate::shell::root().join("www");
        assert_eq!(resolve(&dist, "/worker.js?v=1"), Some(dist.join("worker.js")));
        assert_eq!(resolve(&dist, "/../Cargo.toml"), None);
        assert_eq!(resolve(&dist, "/%2e%2e/Cargo.toml"), None);
        assert_eq!(resolve(&dist, "/no-such-file"), None);
        assert_eq!(content_type(Path::new("a/b_bg.wasm")), "application/wasm");
    }

    /// The answer `respond` gives to `request`, read from a real connection.
    fn answer_to(request: &str) -> String {
        use std::io::Read;
        let listener = TcpListener::bind(("127.0.0.1", 0)).unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        client.write_all(request.as_bytes()).unwrap();
        let (server_side, _) = listener.accept().unwrap();
        respond(server_side, &crate::shell::root().join("www")).unwrap();
        let mut answer = String::new();
        client.read_to_string(&mut answer).unwrap();
        answer
    }

    #[test]
    fn every_answer_makes_the_page_cross_origin_isolated() {
        for (request, status) in [
            ("GET /sw.js HTTP/1.1\r\nHost: x\r\n\r\n", "200 OK"),
            ("GET /worker.js HTTP/1.1\r\n\r\n", "200 OK"),
            ("GET /no-such-file HTTP/1.1\r\n\r\n", "404 Not Found"),
        ] {
            let answer = answer_to(request);
            let (head, _) = answer.split_once("\r\n\r\n").unwrap();
            assert!(head.starts_with(&format!("HTTP/1.1 {status}\r\n")), "{head}");
            // Both, or the worker cannot share its memory with its threads.
            assert!(head.contains("\r\nCross-Origin-Opener-Policy: same-origin\r\n"), "{head}");
            assert!(head.contains("\r\nCross-Origin-Embedder-Policy: require-corp\r\n"), "{head}");
        }
    }
}
