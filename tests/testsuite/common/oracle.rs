//! A client for the Go oracle (tests/oracle): one long-lived process per k8s.io/api layout,
//! spoken to in JSON lines over stdin/stdout.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::Value;

pub struct Oracle {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Oracle {
    /// The oracle built against `k8s.io/api` `layout`: "v0.36" (ARC's pin, v0.36.2), "v0.35" or "v0.37".
    pub fn spawn(layout: &str) -> Oracle {
        let name = if layout == "v0.36" {
            "oracle".to_string()
        } else {
            format!("oracle-{layout}")
        };
        let path = super::oracle_dir().join(name);
        let mut child = Command::new(&path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the Go oracle {}: {e}", path.display()));
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Oracle {
            child,
            stdin,
            stdout,
        }
    }

    /// Send one request and return its answer.
    pub fn ask(&mut self, request: &Value) -> Value {
        let mut line = serde_json::to_string(request).unwrap();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .expect("write to oracle");
        self.stdin.flush().unwrap();
        let answer = self.read_answer();
        serde_json::from_str(&answer).unwrap_or_else(|e| panic!("oracle answer {answer:?}: {e}"))
    }

    /// The next answer line.
    fn read_answer(&mut self) -> String {
        let mut answer = String::new();
        let n = self
            .stdout
            .read_line(&mut answer)
            .expect("read from oracle");
        assert!(n > 0, "the Go oracle closed its output");
        answer
    }

    /// Send many requests at once (pipelined) and return the answers in order.
    pub fn ask_all(&mut self, requests: &[Value]) -> Vec<Value> {
        let mut buf = Vec::new();
        for r in requests {
            serde_json::to_writer(&mut buf, r).unwrap();
            buf.push(b'\n');
        }
        // Write from a thread so a full pipe cannot deadlock against our reads.
        let mut stdin = self.stdin.try_clone_for_pipeline();
        let writer = std::thread::spawn(move || {
            stdin.write_all(&buf).expect("write to oracle");
            stdin.flush().unwrap();
        });
        let mut out = Vec::with_capacity(requests.len());
        for _ in requests {
            out.push(serde_json::from_str(&self.read_answer()).unwrap());
        }
        writer.join().unwrap();
        out
    }

    /// The legacy integrity hash Go computes for a raw `spec.ephemeralRunnerSpec` JSON text.
    pub fn hash(&mut self, spec_json: &str) -> String {
        let answer = self.ask(&serde_json::json!({"op": "hash", "spec": spec_json}));
        match answer.get("hash").and_then(Value::as_str) {
            Some(h) => h.to_string(),
            None => panic!("oracle gave no hash: {answer}"),
        }
    }
}

trait ClonePipe {
    fn try_clone_for_pipeline(&self) -> std::fs::File;
}

impl ClonePipe for ChildStdin {
    fn try_clone_for_pipeline(&self) -> std::fs::File {
        use std::os::fd::AsFd;
        std::fs::File::from(self.as_fd().try_clone_to_owned().expect("dup oracle stdin"))
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
