//! The process as the library sees it: a [`Shell`] to talk to the user (cargo's
//! `core/shell.rs`: stdout, stderr, colour, verbosity, progress and the `error:`/`warning:`/
//! `note:`/`hint:` lines) and an [`Env`] with what the process was started with (environment
//! variables, directories, stdin and the wall clock). `main` builds both from the real process;
//! tests build them from whatever they like. Nothing below `main` reads the environment, stdin or
//! the clock by itself.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fmt::Display;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::rc::Rc;
use std::time::SystemTime;

/// What the process knows about its terminal, handed in by `main` (the library never asks).
#[derive(Debug, Clone, Copy, Default)]
pub struct Terminal {
    /// stdout is a terminal.
    pub stdout_is_tty: bool,
    /// stderr is a terminal (progress is shown only there).
    pub stderr_is_tty: bool,
    /// `NO_COLOR` is set to a non-empty value.
    pub no_color: bool,
}

/// When to colour output (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl Terminal {
    /// Whether to colour stdout, per `--color` and the NO_COLOR convention.
    pub(crate) fn color(&self, choice: ColorChoice) -> bool {
        match choice {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => self.stdout_is_tty && !self.no_color,
        }
    }
}

/// The one way out to the user. Data (reports, tables, scripts) goes to [`Shell::out`];
/// everything said about the run goes to stderr through [`Shell::error`], [`Shell::warn`],
/// [`Shell::note`], [`Shell::hint`] and [`Shell::status`], or as a progress line.
///
/// A progress line ([`Shell::progress`]) is one line on a terminal's stderr that rewrites itself;
/// any other write first clears it, so progress never leaves half a line in front of a message
/// or a table. Off a terminal, or with `-v` logging on stderr, progress is not shown at all: a
/// caller that wants a line per change in a log asks [`Shell::shows_progress`] and says it with
/// [`Shell::status`].
pub struct Shell<'a> {
    out: Box<dyn Write + 'a>,
    err: Box<dyn Write + 'a>,
    term: Terminal,
    verbosity: u8,
    /// A progress line is on stderr now.
    progress_shown: bool,
    /// One kubeconfig context's part of a fleet run: its `error:`/`warning:`/`note:`/`hint:`
    /// and status lines name it (`error: context NAME: ...`).
    context: Option<String>,
    /// The exit code the command's report stands for, said before the report is written: what
    /// the run exits with when stdout's reader goes away while it is written
    /// (`kubectl arc diff -f X | head -1` under `pipefail` keeps diff's 1).
    verdict: Option<u8>,
}

/// One of several [`Shell`]s writing to the same stream at once (a fleet run's contexts, on one
/// thread): each write goes through whole, never interleaved within a call.
pub(crate) struct SharedWriter<'w>(Rc<RefCell<&'w mut dyn Write>>);

impl<'w> SharedWriter<'w> {
    /// `count` handles on `w`.
    pub(crate) fn split(w: &'w mut dyn Write, count: usize) -> Vec<SharedWriter<'w>> {
        let shared = Rc::new(RefCell::new(w));
        (0..count).map(|_| SharedWriter(shared.clone())).collect()
    }
}

impl Write for SharedWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.borrow_mut().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.borrow_mut().flush()
    }
}

impl<'a> Shell<'a> {
    pub(crate) fn new(out: &'a mut dyn Write, err: &'a mut dyn Write, term: Terminal) -> Self {
        Shell {
            out: Box::new(out),
            err: Box::new(err),
            term,
            verbosity: 0,
            progress_shown: false,
            context: None,
            verdict: None,
        }
    }

    /// Say the exit code of the report about to be written: kept when stdout closes under it.
    pub(crate) fn verdict(&mut self, code: u8) {
        self.verdict = Some(code);
    }

    /// The exit code said by [`Shell::verdict`], if any.
    pub(crate) fn said_verdict(&self) -> Option<u8> {
        self.verdict
    }

    /// A shell for a step whose lines are kept, not shown: stdout and stderr go to the buffers,
    /// with this shell's terminal but no progress line (for a dry run said only if it fails).
    pub(crate) fn capture<'b>(&self, out: &'b mut Vec<u8>, err: &'b mut Vec<u8>) -> Shell<'b> {
        let term = Terminal {
            stderr_is_tty: false,
            ..self.term
        };
        let mut shell = Shell::new(out, err, term);
        shell.verbosity = self.verbosity;
        shell.context = self.context.clone();
        shell
    }

    /// Name `context` in every line said from now on (`None`: no longer), for a command that
    /// goes through several kubeconfig contexts one after the other.
    pub(crate) fn set_context(&mut self, context: Option<&str>) {
        self.context = context.map(str::to_string);
    }

    /// One shell for each of a fleet run's `contexts`, over shared handles of this shell's
    /// streams (one thread: each write goes through whole). Each one's lines on stderr name its
    /// context, and it shows no progress line (several would overwrite each other): a caller
    /// that asks [`Shell::shows_progress`] says each step as a line instead.
    pub(crate) fn for_contexts(&mut self, contexts: &[String]) -> Vec<Shell<'_>> {
        self.clear_progress();
        let term = Terminal {
            stderr_is_tty: false,
            ..self.term
        };
        let verbosity = self.verbosity;
        let outs = SharedWriter::split(&mut *self.out, contexts.len());
        let errs = SharedWriter::split(&mut *self.err, contexts.len());
        (contexts.iter().zip(outs.into_iter().zip(errs)))
            .map(|(c, (out, err))| Shell {
                out: Box::new(out),
                err: Box::new(err),
                term,
                verbosity,
                progress_shown: false,
                context: Some(c.clone()),
                verdict: None,
            })
            .collect()
    }

    /// The `-v` level: above 0 the log lines share stderr, so progress lines are not shown.
    pub(crate) fn set_verbosity(&mut self, level: u8) {
        self.verbosity = level;
    }

    /// Whether to colour stdout under `--color choice`.
    pub(crate) fn color(&self, choice: ColorChoice) -> bool {
        self.term.color(choice)
    }

    /// Whether stderr rewrites a progress line in place.
    pub(crate) fn shows_progress(&self) -> bool {
        self.term.stderr_is_tty && self.verbosity == 0
    }

    /// stdout, for data. A progress line is cleared first when both streams share a terminal.
    pub(crate) fn out(&mut self) -> &mut dyn Write {
        if self.term.stdout_is_tty {
            self.clear_progress();
        }
        &mut *self.out
    }

    /// stderr, for free-form diagnostics (clap's messages, a watch's reconnect line).
    pub(crate) fn err(&mut self) -> &mut dyn Write {
        self.clear_progress();
        &mut *self.err
    }

    /// `error: MESSAGE`, as kubectl prints errors.
    pub(crate) fn error(&mut self, message: impl Display) -> io::Result<()> {
        self.line("error: ", message)
    }

    /// `warning: MESSAGE`.
    pub(crate) fn warn(&mut self, message: impl Display) -> io::Result<()> {
        self.line("warning: ", message)
    }

    /// `note: MESSAGE`: something worth knowing that changes nothing.
    pub(crate) fn note(&mut self, message: impl Display) -> io::Result<()> {
        self.line("note: ", message)
    }

    /// `hint: MESSAGE`: what to do next.
    pub(crate) fn hint(&mut self, message: impl Display) -> io::Result<()> {
        self.line("hint: ", message)
    }

    /// A plain line on stderr, kubectl's way of saying a list was empty
    /// (`No EphemeralRunnerSets found.`) or that a wait goes on.
    pub(crate) fn status(&mut self, message: impl Display) -> io::Result<()> {
        self.line("", message)
    }

    /// Show `line` as the progress line (a terminal only; nothing otherwise).
    pub(crate) fn progress(&mut self, line: impl Display) -> io::Result<()> {
        if !self.shows_progress() {
            return Ok(());
        }
        write!(self.err, "\r{line}\x1b[K")?;
        self.err.flush()?;
        self.progress_shown = true;
        Ok(())
    }

    /// Erase the progress line, if one is shown.
    pub(crate) fn clear_progress(&mut self) {
        if self.progress_shown {
            self.progress_shown = false;
            // A failed erase loses only a cosmetic line; the next write reports the stream.
            let _ = write!(self.err, "\r\x1b[K").and_then(|()| self.err.flush());
        }
    }

    fn line(&mut self, prefix: &str, message: impl Display) -> io::Result<()> {
        self.clear_progress();
        match &self.context {
            Some(c) => writeln!(self.err, "{prefix}context {c}: {message}"),
            None => writeln!(self.err, "{prefix}{message}"),
        }
    }
}

impl Drop for Shell<'_> {
    fn drop(&mut self) {
        self.clear_progress();
    }
}

/// What the process was started with, read once by `main`: the environment variables,
/// the working and home directories, stdin and the wall clock.
pub struct Env<'a> {
    vars: BTreeMap<OsString, OsString>,
    /// The user's home directory (`~/.kube/config` lives there).
    pub(crate) home: Option<PathBuf>,
    /// The working directory (completion of relative paths).
    pub(crate) cwd: Option<PathBuf>,
    /// The running executable (`completion install` links kubectl's completer to it).
    pub(crate) exe: Option<PathBuf>,
    /// `-` as a file name reads this.
    pub(crate) stdin: Box<dyn Read + 'a>,
    /// The wall clock: ages in tables, "last written ... ago".
    pub(crate) clock: fn() -> SystemTime,
    /// This run's random seed: a new bump request id, the jitter of retried writes.
    pub(crate) seed: u64,
    /// The process ends when the run does (the binary), so a large report need not be freed.
    pub(crate) exits_after_run: bool,
}

impl Default for Env<'_> {
    /// No variables, no directories, an empty stdin and the system's clock: a run that depends on
    /// nothing it was not given.
    fn default() -> Self {
        Env {
            vars: BTreeMap::new(),
            home: None,
            cwd: None,
            exe: None,
            stdin: Box::new(io::empty()),
            clock: SystemTime::now,
            seed: random_seed(&[]),
            exits_after_run: false,
        }
    }
}

/// A seed no other run shares: std's per-process random keys, over `mix`.
fn random_seed(mix: &[u64]) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    for m in mix {
        h.write_u64(*m);
    }
    h.finish()
}

impl<'a> Env<'a> {
    /// The real process's environment, working and home directories, stdin and clock: for the
    /// binaries' `main` functions, the one place that reads them.
    pub fn from_process() -> Env<'static> {
        Env {
            vars: std::env::vars_os().collect(),
            home: std::env::home_dir(),
            cwd: std::env::current_dir().ok(),
            exe: std::env::current_exe().ok(),
            stdin: Box::new(io::stdin()),
            clock: SystemTime::now,
            seed: random_seed(&[
                u64::from(std::process::id()),
                SystemTime::now()
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos() as u64),
            ]),
            exits_after_run: true,
        }
    }

    #[cfg(test)]
    /// These variables over an otherwise [`Default`] environment.
    pub(crate) fn with_vars<K: Into<OsString>, V: Into<OsString>>(
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Self {
        Env {
            vars: vars
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
            ..Env::default()
        }
    }

    /// The variable `name`, as `std::env::var_os` would have read it.
    pub fn var_os(&self, name: impl AsRef<OsStr>) -> Option<&OsStr> {
        self.vars.get(name.as_ref()).map(OsString::as_os_str)
    }

    /// The variable `name` if it is set and valid UTF-8.
    pub(crate) fn var(&self, name: impl AsRef<OsStr>) -> Option<&str> {
        self.var_os(name).and_then(OsStr::to_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tty() -> Terminal {
        Terminal {
            stdout_is_tty: true,
            stderr_is_tty: true,
            no_color: false,
        }
    }

    #[test]
    fn progress_is_cleared_before_anything_else_is_said() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        {
            let mut shell = Shell::new(&mut out, &mut err, tty());
            shell.progress("bumping 1/40").unwrap();
            shell.progress("bumping 2/40").unwrap();
            shell.warn("w").unwrap();
            shell.progress("bumping 3/40").unwrap();
            writeln!(shell.out(), "table").unwrap();
        }
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "\rbumping 1/40\x1b[K\rbumping 2/40\x1b[K\r\x1b[Kwarning: w\n\rbumping 3/40\x1b[K\r\x1b[K"
        );
        assert_eq!(String::from_utf8(out).unwrap(), "table\n");
    }

    #[test]
    fn no_progress_off_a_terminal_or_under_logging() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        {
            let mut shell = Shell::new(&mut out, &mut err, Terminal::default());
            shell.progress("bumping 1/40").unwrap();
            shell.hint("h").unwrap();
        }
        assert_eq!(String::from_utf8(err).unwrap(), "hint: h\n");
        let mut err = Vec::new();
        {
            let mut shell = Shell::new(&mut out, &mut err, tty());
            shell.set_verbosity(6);
            shell.progress("bumping 1/40").unwrap();
        }
        assert!(err.is_empty());
    }

    #[test]
    fn a_pipe_on_stdout_leaves_the_progress_line_alone() {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        {
            let term = Terminal {
                stdout_is_tty: false,
                ..tty()
            };
            let mut shell = Shell::new(&mut out, &mut err, term);
            shell.progress("p").unwrap();
            writeln!(shell.out(), "row").unwrap();
            shell.progress("q").unwrap();
        }
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "\rp\x1b[K\rq\x1b[K\r\x1b[K"
        );
    }

    #[test]
    fn the_environment_is_what_it_was_given() {
        let env = Env::with_vars([("KUBECONFIG", "/a:/b"), ("COMPLETE", "bash")]);
        assert_eq!(env.var("KUBECONFIG"), Some("/a:/b"));
        assert_eq!(env.var("HOME"), None);
        assert_eq!(
            crate::cluster::KubeEnv::from_env(&env)
                .kubeconfig
                .as_deref(),
            Some(OsStr::new("/a:/b"))
        );
        let fixed = Env {
            clock: || SystemTime::UNIX_EPOCH,
            ..Env::default()
        };
        assert_eq!((fixed.clock)(), SystemTime::UNIX_EPOCH);
        assert_ne!(
            Env::default().seed,
            Env::default().seed,
            "each run its own seed"
        );
    }

    #[test]
    fn colour_follows_the_choice_and_no_color() {
        assert!(tty().color(ColorChoice::Auto));
        let no_color = Terminal {
            no_color: true,
            ..tty()
        };
        assert!(!no_color.color(ColorChoice::Auto));
        assert!(!Terminal::default().color(ColorChoice::Auto));
        assert!(Terminal::default().color(ColorChoice::Always));
        assert!(!tty().color(ColorChoice::Never));
    }
}
