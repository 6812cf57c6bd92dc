//! The command line (design §13.1; REQ-OPS-001): `serve`, `check`,
//! `health`, `--version`; usage errors exit 2 with a message on stderr.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand, ValueEnum};
use rypsok_core::{Config, ConfigProblem};
use rypsok_proto::{LogLevel, WorkerKind};

#[derive(Debug, Parser)]
#[command(
    name = "rypsok",
    version,
    about = "A local MCP server that gives AI agents the web safely"
)]
struct Cli {
    /// Configuration file (TOML). Without one, the defaults apply.
    #[arg(long, global = true, env = "RYPSOK_CONFIG", value_name = "PATH")]
    config: Option<PathBuf>,
    /// Without a command, rypsok serves MCP on stdin and stdout, as
    /// `serve` does.
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve MCP until the end of input (stdio) or SIGTERM; stdio unless
    /// `--transport http` (the default command).
    Serve {
        /// The transport: stdio (for a host that starts rypsok) or http
        /// (Streamable HTTP on `[http] bind`).
        #[arg(long, value_enum, default_value_t = Transport::Stdio)]
        transport: Transport,
    },
    /// Validate the configuration and the secrets it names: the verdict on
    /// stdout, each problem and warning (an engine left inactive) with its
    /// key on stderr; exit 0 when valid, 1 with every problem.
    Check,
    /// Ask the HTTP listener of `serve --transport http` at the configured
    /// `[http] bind` for its tools over MCP (with its token): exit 0 when it
    /// answers, 1 otherwise.
    Health,
    /// Write the manual page (roff, generated from this definition) to
    /// stdout; the packages build theirs with it.
    #[command(name = "__manpage", hide = true)]
    Manpage,
    /// A worker process (started by rypsok itself).
    #[command(name = "__worker", hide = true)]
    Worker {
        #[arg(value_enum)]
        kind: WorkerArg,
        #[arg(long)]
        parent: u32,
        #[arg(long, value_enum)]
        log_level: LevelArg,
        /// Honour test-only probes (a test build started by the tests).
        #[arg(long)]
        probes: bool,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Transport {
    Stdio,
    Http,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum WorkerArg {
    #[value(name = "worker-net")]
    Net,
    #[value(name = "worker-parse")]
    Parse,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LevelArg {
    Error,
    Warn,
    Info,
    Debug,
    Trace,
}

impl From<LevelArg> for LogLevel {
    fn from(l: LevelArg) -> Self {
        match l {
            LevelArg::Error => Self::Error,
            LevelArg::Warn => Self::Warn,
            LevelArg::Info => Self::Info,
            LevelArg::Debug => Self::Debug,
            LevelArg::Trace => Self::Trace,
        }
    }
}

/// Exit code of a usage error (§13.1).
const USAGE: u8 = 2;

#[allow(clippy::print_stderr)] // the operator's terminal, before and instead of logging
pub(crate) fn run() -> Result<ExitCode> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are answers, not errors; clap knows which.
            let _ = e.print();
            return Ok(ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(USAGE)));
        }
    };
    let command = cli.command.unwrap_or(Command::Serve {
        transport: Transport::Stdio,
    });
    match command {
        Command::Worker {
            kind,
            parent,
            log_level,
            probes,
        } => {
            if probes {
                rypsok_proto::probe_gate::arm();
            }
            let kind = match kind {
                WorkerArg::Net => WorkerKind::Net,
                WorkerArg::Parse => WorkerKind::Parse,
            };
            Ok(crate::worker::run(kind, parent, log_level.into()))
        }
        Command::Manpage => {
            std::io::Write::write_all(&mut std::io::stdout().lock(), &manpage()?)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Check => Ok(check(cli.config.as_deref())),
        Command::Health => match load(cli.config.as_deref()) {
            Ok(config) => Ok(match crate::health::check(&config) {
                Ok(addr) => {
                    eprintln!("healthy: the listener at {addr} answered tools/list");
                    ExitCode::SUCCESS
                }
                Err(why) => {
                    eprintln!("unhealthy: {why}");
                    ExitCode::from(1)
                }
            }),
            Err(problems) => {
                eprintln!(
                    "unhealthy: the configuration is invalid: {} problem(s) (see `rypsok check`)",
                    problems.len()
                );
                Ok(ExitCode::from(1))
            }
        },
        Command::Serve { transport } => match load(cli.config.as_deref()) {
            Ok(config) => match transport {
                Transport::Stdio => crate::boot::run(config, crate::stdio::serve),
                Transport::Http => crate::boot::run(config, crate::http::serve),
            },
            Err(problems) => {
                for p in &problems {
                    eprintln!("{p}");
                }
                eprintln!(
                    "rypsok: the configuration is invalid; nothing started (see `rypsok check`)"
                );
                Ok(ExitCode::from(1))
            }
        },
    }
}

/// `rypsok check`: the verdict on stdout, each problem and warning on
/// stderr (one line each, with its key path); exit 1 when `serve` would
/// refuse the configuration or its workers.
#[allow(clippy::print_stderr, clippy::print_stdout)] // check speaks no MCP: its verdict is its output
fn check(path: Option<&std::path::Path>) -> ExitCode {
    let config = match load(path) {
        Ok(config) => config,
        Err(problems) => return invalid(&problems),
    };
    // What the file names but cannot be read only shows when read: the
    // adapter reads it here, as serve will at start.
    let (problems, warnings) = crate::secrets::credential_report(&config);
    for warning in &warnings {
        eprintln!("{warning}");
    }
    let mut problems = problems;
    let roots = crate::network::roots_report(&config);
    if let Err((path, why)) = &roots {
        problems.push(ConfigProblem {
            path: path.clone(),
            message: why.to_string(),
        });
    }
    if !problems.is_empty() {
        return invalid(&problems);
    }
    println!("configuration valid");
    if let Ok(roots) = roots {
        println!("{roots}");
    }
    // The configuration is only half of whether serve can work: the other
    // half is what this kernel lets the workers do.
    if check_confinement(&config) {
        ExitCode::SUCCESS
    } else {
        println!("workers refused: serve would not start them");
        ExitCode::from(1)
    }
}

/// Each problem on stderr, the verdict on stdout; exit 1.
#[allow(clippy::print_stderr, clippy::print_stdout)] // check speaks no MCP: its verdict is its output
fn invalid(problems: &[ConfigProblem]) -> ExitCode {
    for p in problems {
        eprintln!("{p}");
    }
    println!("configuration invalid: {} problem(s)", problems.len());
    ExitCode::from(1)
}

/// Prints the confinement this kernel allows, probed by starting one
/// worker of each kind (not inferred from kernel version numbers), on
/// stdout, and on stderr whether `[sandbox]` would refuse it. `false` when serve's workers would
/// be refused.
#[allow(clippy::print_stderr, clippy::print_stdout)] // check's report on stdout, what serve would refuse on stderr
fn check_confinement(config: &Config) -> bool {
    let (mut net, mut parse) = crate::boot::worker_specs(config);
    // The probe's own worker logs would drown the report.
    net.log_level = LogLevel::Error;
    parse.log_level = LogLevel::Error;
    let probed = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())
        .and_then(|rt| {
            let spawner = crate::workers::Spawner::start().map_err(|e| e.to_string())?;
            Ok(rt.block_on(crate::workers::probe_confinement(&spawner, &net, &parse)))
        });
    let probed = match probed {
        Ok(p) => p,
        Err(e) => {
            eprintln!("confinement: could not start the workers to probe it: {e}");
            return false;
        }
    };
    println!("confinement (probed by starting one worker of each kind):");
    let mut ok = true;
    for (kind, result) in probed {
        match result {
            Ok(c) => {
                println!(
                    "  {}: {}; seccomp {} ({} system calls); landlock {} (ABI {}, tcp {}); no_new_privs {}; rlimits {}; inherited descriptors closed {}; capabilities dropped {}",
                    kind.as_str(),
                    c.summary(),
                    c.seccomp.as_str(),
                    c.syscalls,
                    c.landlock.as_str(),
                    c.landlock_abi,
                    c.landlock_net.as_str(),
                    c.no_new_privs,
                    c.rlimits,
                    c.descriptors_closed,
                    c.capabilities_dropped,
                );
                if let Some(why) = net.sandbox.refusal(&c) {
                    eprintln!("  {}: serve would refuse it: {why}", kind.as_str());
                    ok = false;
                }
            }
            Err(why) => {
                eprintln!("  {}: did not start: {why}", kind.as_str());
                ok = false;
            }
        }
    }
    ok
}

/// The manual page, rypsok(1), from the definition above: clap_mangen's
/// title, synopsis and options, then each visible command with its
/// options and values, the environment, and the exit statuses (one page,
/// not one per command).
fn manpage() -> Result<Vec<u8>> {
    let command = <Cli as clap::CommandFactory>::command();
    let man = clap_mangen::Man::new(command.clone());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    let roff = |text: &str| text.replace('\\', "\\e").replace('-', "\\-");
    let mut text = String::from(".SH COMMANDS\n");
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        text.push_str(&format!(".TP\n\\fBrypsok {}\\fR", sub.get_name()));
        for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
            if let Some(long) = arg.get_long() {
                let possible = arg.get_possible_values();
                let values: Vec<&str> = possible
                    .iter()
                    .map(clap::builder::PossibleValue::get_name)
                    .collect();
                text.push_str(&format!(
                    " \\fB\\-\\-{}\\fR {}",
                    roff(long),
                    values.join("|")
                ));
            }
        }
        text.push('\n');
        text.push_str(&roff(
            &sub.get_about().map(ToString::to_string).unwrap_or_default(),
        ));
        text.push_str(".\n");
    }
    text.push_str(".SH ENVIRONMENT\n");
    for arg in command.get_arguments() {
        if let (Some(env), Some(long)) = (arg.get_env(), arg.get_long()) {
            text.push_str(&format!(
                ".TP\n\\fB{}\\fR\nAs \\fB\\-\\-{}\\fR.\n",
                env.to_string_lossy(),
                roff(long)
            ));
        }
    }
    text.push_str(
        ".TP\n\\fBBRAVE_API_KEY\\fR\nThe Brave Search key (the default reference of \\fBapi_key_env\\fR).\n",
    );
    text.push_str(
        ".SH EXIT STATUS\n0 on success; 1 for an invalid configuration, workers refused, \
         or an unhealthy listener; 2 for a usage error.\n",
    );
    text.push_str(
        ".SH SEE ALSO\n/usr/share/doc/rypsok/README.md, /usr/share/doc/rypsok/SECURITY.md\n",
    );
    page.extend_from_slice(text.as_bytes());
    Ok(page)
}

/// Loads the configuration file, or the defaults when none is named.
fn load(path: Option<&std::path::Path>) -> Result<Config, Vec<ConfigProblem>> {
    match path {
        Some(path) => crate::secrets::load_file(path),
        None => Ok(Config::defaults()),
    }
}
