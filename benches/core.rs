//! Core benchmarks over the realistic runner spec the Go oracle benchmarks use
//! (`tests/oracle/testdata/realistic-spec.json`, `tests/oracle/bench_test.go`).
//!
//! A small hand-written harness (no extra dependencies). `cargo bench --bench core` prints one line
//! per sample in Go's benchmark format, so `scripts/bench.sh` parses both sides alike:
//!
//! ```text
//! BenchmarkSemanticDeepEqual   412345   2421.3 ns/op   0 B/op   0 allocs/op
//! ```
//!
//! Options after `--`: a name filter (substring), `--count N` (samples per benchmark, default 5),
//! `--benchtime-ms M` (target time per sample, default 1000, like Go's `-benchtime 1s`) and
//! `--cpu-time` (count the process's time on a CPU, every thread's, to compare two Rust builds on a busy
//! machine; Go reports wall time, so the side-by-side table does not use it).
//! Bytes and allocations per operation come from a counting global allocator, enabled only during
//! a separate counting pass so that the timed samples pay nothing for it. Like Go's `-benchmem`, a
//! reallocation counts as one allocation of its new size, and frees are not counted.
//!
//! Without `--bench` (as `cargo test --all-targets` runs it) each benchmark runs once, as a smoke
//! test.

use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use kubectl_arc::core::equality::{compare, semantic_equal};
use kubectl_arc::core::layout::Layout;
use kubectl_arc::core::legacy_hash::{integrity_hash, spew};
use kubectl_arc::core::value::{Value, decode};

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

#[inline]
fn count(size: usize) {
    if COUNTING.load(Relaxed) {
        ALLOCS.fetch_add(1, Relaxed);
        BYTES.fetch_add(size as u64, Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator; counting has no effect on it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: AllocLayout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller's contract is passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: AllocLayout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: the caller's contract is passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        // SAFETY: the caller's contract is passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const REALISTIC: &str = include_str!("../tests/oracle/testdata/realistic-spec.json");
const DUMP_YAML: &str = include_str!("../tests/oracle/testdata/realistic-dump.yaml");

struct Options {
    bench: bool,
    filter: Option<String>,
    count: usize,
    benchtime: Duration,
    /// Time only what the process spent on a CPU, every thread's (for comparing two Rust builds on
    /// a busy machine, and the work beside the wall time when the work is split on several cores;
    /// Go's figures are wall time, so `scripts/bench.sh` does not use it).
    cpu_time: bool,
}

fn options() -> Options {
    let mut o = Options {
        bench: false,
        filter: None,
        count: 5,
        benchtime: Duration::from_millis(1000),
        cpu_time: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut num = |what: &str| -> u64 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{what} needs a number"))
        };
        match a.as_str() {
            "--bench" => o.bench = true,
            "--cpu-time" => o.cpu_time = true,
            "--count" => o.count = num("--count").max(1) as usize,
            "--benchtime-ms" => o.benchtime = Duration::from_millis(num("--benchtime-ms")),
            // Flags libtest would understand; nothing to do for them here.
            s if s.starts_with("--") => {}
            s => o.filter = Some(s.to_string()),
        }
    }
    o
}

/// Run `f` `n` times and return the elapsed time (wall, or the process's CPU time).
fn time_n(o: &Options, n: u64, f: &mut dyn FnMut()) -> Duration {
    let cpu0 = o.cpu_time.then(process_cpu_time);
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    let wall = t.elapsed();
    match cpu0 {
        Some(cpu0) => process_cpu_time().saturating_sub(cpu0),
        None => wall,
    }
}

/// The process's time on a CPU so far, every thread's, those that ended included
/// (`clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`).
fn process_cpu_time() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to write.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    assert_eq!(
        rc, 0,
        "--cpu-time needs clock_gettime(CLOCK_PROCESS_CPUTIME_ID)"
    );
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// One benchmark: calibrate like Go's `b.Loop` (grow the count until a run takes the target
/// time), print `count` timed samples, each with the per-operation allocation figures.
fn run(o: &Options, name: &str, f: &mut dyn FnMut()) {
    // A filter names benchmarks by substring, or exactly when it ends with `$` (`DiffFilesJSON$`).
    let selected = |p: &str| match p.strip_suffix('$') {
        Some(exact) => name == exact,
        None => name.contains(p),
    };
    if o.filter.as_deref().is_some_and(|p| !selected(p)) {
        return;
    }
    if !o.bench {
        f();
        println!("smoke {name}: ok");
        return;
    }
    // Warm up and calibrate.
    let mut n: u64 = 1;
    loop {
        let d = time_n(o, n, f);
        if d >= o.benchtime / 10 || n >= 1 << 30 {
            let per = d.as_nanos().max(1) as f64 / n as f64;
            n = ((o.benchtime.as_nanos() as f64 / per) as u64).max(1);
            break;
        }
        n *= 10;
    }
    // Allocation figures are deterministic: count them over a short separate pass.
    let counted = 100.min(n).max(1);
    ALLOCS.store(0, Relaxed);
    BYTES.store(0, Relaxed);
    COUNTING.store(true, Relaxed);
    for _ in 0..counted {
        f();
    }
    COUNTING.store(false, Relaxed);
    let allocs = ALLOCS.load(Relaxed) as f64 / counted as f64;
    let bytes = BYTES.load(Relaxed) as f64 / counted as f64;
    for _ in 0..o.count {
        let d = time_n(o, n, f);
        let ns = d.as_nanos() as f64 / n as f64;
        println!(
            "Benchmark{name}\t{n:>10}\t{ns:>12.1} ns/op\t{bytes:>8.0} B/op\t{allocs:>6.0} allocs/op"
        );
    }
}

/// How many Go values the tree holds (every field of every struct, pointer targets, elements).
fn nodes(v: &Value) -> usize {
    1 + match v {
        Value::Struct(f) => f.iter().map(nodes).sum(),
        Value::Ptr(Some(p)) => nodes(p),
        Value::Slice(Some(s)) => s.iter().map(nodes).sum(),
        Value::Map(Some(m)) => m.iter().map(|(_, v)| nodes(v)).sum(),
        _ => 0,
    }
}

fn main() {
    let o = options();
    let layout = Layout::arc();
    let ty = layout.ephemeral_runner_spec;
    let a = decode(layout, ty, REALISTIC).expect("realistic spec decodes");
    let b = decode(layout, ty, REALISTIC).expect("realistic spec decodes");
    assert!(semantic_equal(layout, ty, &a, &b), "copies differ");
    assert!(compare(layout, ty, &a, &b).reflect_equal(), "copies differ");
    // The first hash in a process also builds the hash tables of the fixed texts it meets.
    let t = Instant::now();
    let hash = integrity_hash(layout, &a).expect("realistic spec hashes");
    let first = t.elapsed();
    if o.bench {
        let text = spew(layout, &a).expect("realistic spec spews");
        println!(
            "# realistic spec: {} bytes of JSON, {} bytes of spew, {} Go values, legacy hash {hash} \
             (the process's first hash: {:.0} us)",
            REALISTIC.len(),
            text.len(),
            nodes(&a),
            first.as_secs_f64() * 1e6
        );
    }

    // Go: BenchmarkSemanticDeepEqual (no drift: the full walk is done).
    run(&o, "SemanticDeepEqual", &mut || {
        black_box(semantic_equal(layout, ty, black_box(&a), black_box(&b)));
    });
    // Every difference with its class (no Go counterpart: Go runs three separate equalities).
    run(&o, "Compare", &mut || {
        black_box(compare(layout, ty, black_box(&a), black_box(&b)));
    });
    // Go: BenchmarkLegacyHash.
    run(&o, "LegacyHash", &mut || {
        black_box(integrity_hash(layout, black_box(&a)).ok());
    });
    // Go: BenchmarkDecode.
    run(&o, "Decode", &mut || {
        black_box(decode(layout, ty, black_box(REALISTIC)).ok());
    });
    // Go: BenchmarkYAMLToJSON (the manifest read as kubectl reads it, to JSON text, scalars
    // resolved as go.yaml.in/yaml/v2 resolves them).
    run(&o, "YAMLToJSON", &mut || {
        let objects = kubectl_arc::manifest::parse(black_box(DUMP_YAML), "dump").expect("parses");
        for obj in &objects {
            black_box(kubectl_arc::manifest::go_json(&obj.value));
        }
    });

    // The commands over files of 1,000 scale sets, in process, as a user runs them (arguments,
    // reading, decoding, hashing or building and comparing, the report written to a sink).
    // Go: BenchmarkMigrateFiles* and BenchmarkDiffFiles* (ARC's own decoding, hash, builder and
    // equality over the same files).
    let (yaml, json) = bench_files(o.bench);
    for (name, path) in [("YAML", &yaml), ("JSON", &json)] {
        // Every set is in sync with its legacy hash: exit 0.
        run(&o, &format!("MigrateFiles{name}"), &mut || {
            let code = command(&["migrate", "--dry-run=client", "-f", path]);
            assert_eq!(code, 0, "migrate -f {path}");
        });
        // Every scale set drifts (the dump's runner image moved): exit 1. The JSON report (the
        // differences of every set, as CI reads them); the text diff below adds the YAML
        // rendering of both specs of every drifting set.
        run(&o, &format!("DiffFiles{name}"), &mut || {
            let code = command(&["diff", "--local", "-f", path, "-o", "json"]);
            assert_eq!(code, 1, "diff -f {path}");
        });
    }
    // No Go counterpart: Go prints nothing.
    run(&o, "DiffFilesJSONText", &mut || {
        let code = command(&["diff", "--local", "-f", &json]);
        assert_eq!(code, 1, "diff -f {json}");
    });
}

/// `kubectl arc ARGS...` in this process, its output thrown away; the exit code.
fn command(args: &[&str]) -> u8 {
    let term = kubectl_arc::cli::Terminal {
        stdout_is_tty: false,
        stderr_is_tty: false,
        no_color: true,
    };
    let args = std::iter::once("kubectl-arc").chain(args.iter().copied());
    kubectl_arc::cli::main(
        args,
        term,
        Default::default(),
        &mut std::io::sink(),
        &mut std::io::sink(),
    )
}

/// The files of 1,000 scale sets the Go benchmarks read: `$KUBECTL_ARC_BENCH_DIR`'s
/// sets-1000.yaml and sets-1000.json when scripts/bench.sh made them (with Go, as `kubectl get -o
/// yaml` and `-o json` print them). Otherwise written here alike (1,000 sets to benchmark, 10 for
/// the smoke test): copies of the dump's scale set and its set, each pair in its own namespace,
/// each set carrying the legacy hash of its spec.
fn bench_files(bench: bool) -> (String, String) {
    use kubectl_arc::core::arc::ANNOTATION_INTEGRITY_HASH;
    if let Some(dir) = std::env::var_os("KUBECTL_ARC_BENCH_DIR") {
        let dir = std::path::PathBuf::from(dir);
        let (yaml, json) = (dir.join("sets-1000.yaml"), dir.join("sets-1000.json"));
        if yaml.exists() && json.exists() {
            return (yaml.display().to_string(), json.display().to_string());
        }
    }
    let sets = if bench { 1000 } else { 10 };
    let layout = Layout::arc();
    let dump = kubectl_arc::manifest::parse(DUMP_YAML, "dump").expect("the dump parses");
    let mut items = Vec::new();
    for i in 0..sets {
        for obj in &dump {
            let mut item = obj.value.clone();
            item["metadata"]["namespace"] = format!("arc-runners-{i}").into();
            if obj.kind() == "EphemeralRunnerSet" {
                let spec = kubectl_arc::manifest::go_json(&item["spec"]["ephemeralRunnerSpec"]);
                let spec = decode(layout, layout.ephemeral_runner_spec, &spec).expect("decodes");
                let hash = integrity_hash(layout, &spec).expect("hashes");
                item["metadata"]["annotations"][ANNOTATION_INTEGRITY_HASH] = hash.into();
            }
            items.push(item);
        }
    }
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
    let dir = std::env::temp_dir().join(format!("kubectl-arc-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let (yaml, json) = (dir.join("sets.yaml"), dir.join("sets.json"));
    std::fs::write(&yaml, serde_saphyr::to_string(&list).expect("YAML")).expect("written");
    std::fs::write(&json, serde_json::to_string_pretty(&list).expect("JSON")).expect("written");
    (yaml.display().to_string(), json.display().to_string())
}
