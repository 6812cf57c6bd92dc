//! The command line (design §13.1; REQ-OPS-001): `serve`, `check`,
//! `health`, `--version`; usage errors exit 2 with a message on stderr.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand, ValueEnum};
use rypsok_core::{Config, ConfigProblem};
use rypsok_proto::{LogLevel, WorkerKind};

use crate::config_file::Chosen;

#[derive(Debug, Parser)]
#[command(
    name = "rypsok",
    version,
    about = "A local MCP server that gives AI agents the web safely"
)]
struct Cli {
    /// Configuration file (TOML). Without one, the first that exists of
    /// `$XDG_CONFIG_HOME/rypsok/rypsok.toml` (by default under `~/.config`)
    /// and `/etc/rypsok/rypsok.toml` is read; without any, the defaults
    /// apply.
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
    Check {
        /// Then send one probe query (`rust programming language`, nothing
        /// else) to every enabled engine through the real workers under
        /// their real confinement, and print each engine's result or
        /// failure class; exit 1 when any enabled engine fails.
        #[arg(long)]
        online: bool,
    },
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
        Command::Check { online } => Ok(check(&chosen(cli.config.as_deref()), online)),
        Command::Health => match load(&chosen(cli.config.as_deref())) {
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
        Command::Serve { transport } => {
            let chosen = chosen(cli.config.as_deref());
            match load(&chosen) {
                Ok(config) => {
                    let read = chosen.describe();
                    match transport {
                        Transport::Stdio => crate::boot::run(config, read, crate::stdio::serve),
                        Transport::Http => crate::boot::run(config, read, crate::http::serve),
                    }
                }
                Err(problems) => {
                    for p in &problems {
                        eprintln!("{p}");
                    }
                    eprintln!(
                        "rypsok: the configuration is invalid; nothing started (see `rypsok check`)"
                    );
                    Ok(ExitCode::from(1))
                }
            }
        }
    }
}

/// `rypsok check`: the verdict on stdout, each problem and warning on
/// stderr (one line each, with its key path); exit 1 when `serve` would
/// refuse the configuration or its workers.
#[allow(clippy::print_stderr, clippy::print_stdout)] // check speaks no MCP: its verdict is its output
fn check(chosen: &Chosen, online: bool) -> ExitCode {
    let config = match load(chosen) {
        Ok(config) => config,
        Err(problems) => return invalid(&problems, chosen),
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
        return invalid(&problems, chosen);
    }
    println!("configuration valid");
    println!("configuration file: {}", chosen.describe());
    report_admitted_endpoints(&config);
    if let Some(bind) = config.metrics.bind {
        let auth = if config.metrics.auth_token.is_some() {
            "with a token"
        } else {
            "without a token"
        };
        println!("metrics: GET /metrics on {bind}, {auth}");
    }
    if let Ok(roots) = roots {
        println!("{roots}");
    }
    // The configuration is only half of whether serve can work: the other
    // half is what this kernel lets the workers do.
    if !check_confinement(&config) {
        println!("workers refused: serve would not start them");
        return ExitCode::from(1);
    }
    if online {
        return check_online(config);
    }
    ExitCode::SUCCESS
}

/// `check --online`: one probe query to every enabled engine through the
/// real workers (started as serve starts them, under their confinement),
/// one line per engine on stdout; exit 1 when any enabled engine failed.
#[allow(clippy::print_stderr, clippy::print_stdout)] // check speaks no MCP: its verdict is its output
fn check_online(config: Config) -> ExitCode {
    let config = std::sync::Arc::new(config);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("online: could not start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let reports = runtime.block_on(async {
        let (workers, services) = crate::boot::start(&config, "check", false).await?;
        let reports = services.probe_engines().await;
        workers.shutdown().await;
        anyhow::Ok(reports)
    });
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    let reports = match reports {
        Ok(reports) => reports,
        Err(e) => {
            eprintln!("online: could not start the workers: {e}");
            return ExitCode::from(1);
        }
    };
    println!(
        "online (one probe query, \"{}\", to every enabled engine):",
        rypsok_core::probe::PROBE_QUERY
    );
    let mut failed = 0_usize;
    for report in &reports {
        use rypsok_core::probe::ProbeOutcome;
        let line = match &report.outcome {
            ProbeOutcome::Answered(n) => format!("answered with {n} results"),
            ProbeOutcome::Failed(failure) => {
                failed += 1;
                format!("failed: {}", failure.word())
            }
            ProbeOutcome::Disabled => "not probed: disabled".to_owned(),
            ProbeOutcome::NoCredential => "not probed: no credential".to_owned(),
        };
        println!("  {} ({}): {line}", report.id, report.kind);
        if let Some(allowance) = report.keyless_allowance {
            println!("  {} ({}): keyless: {allowance}", report.id, report.kind);
        }
    }
    if failed == 0 {
        println!("every enabled engine answered");
        ExitCode::SUCCESS
    } else {
        println!("{failed} enabled engine(s) failed");
        ExitCode::from(1)
    }
}

/// Names each engine endpoint admitted for its engine alone because the
/// operator wrote it as an address or as a name pinned in `[egress] hosts`
/// (design §8): no allow rule opens it, and `web_fetch` stays denied there.
#[allow(clippy::print_stdout)] // check's report
fn report_admitted_endpoints(config: &Config) {
    for engine in config.engines.iter().filter(|engine| engine.enabled) {
        let Some(endpoint) = engine.admitted_endpoint(&config.egress.policy) else {
            continue;
        };
        let host = match endpoint.host {
            rypsok_egress::AdmittedHost::Addr(std::net::IpAddr::V6(v6)) => format!("[{v6}]"),
            rypsok_egress::AdmittedHost::Addr(addr) => addr.to_string(),
            rypsok_egress::AdmittedHost::Name(name) => name,
        };
        println!(
            "engine {}: endpoint {host}:{} admitted for this engine only (written as an address or a name pinned in [egress] hosts); web_fetch stays denied there",
            engine.id, endpoint.port
        );
    }
}

/// Each problem on stderr, the verdict on stdout; exit 1.
#[allow(clippy::print_stderr, clippy::print_stdout)] // check speaks no MCP: its verdict is its output
fn invalid(problems: &[ConfigProblem], chosen: &Chosen) -> ExitCode {
    for p in problems {
        eprintln!("{p}");
    }
    println!("configuration invalid: {} problem(s)", problems.len());
    println!("configuration file: {}", chosen.describe());
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
    text.push_str(&format!(
        ".SH FILES\n.TP\n\\fB$XDG_CONFIG_HOME/rypsok/rypsok.toml\\fR\n\
         The user's configuration (\\fB~/.config/rypsok/rypsok.toml\\fR when \\fBXDG_CONFIG_HOME\\fR is unset), \
         read when neither \\fB\\-\\-config\\fR nor \\fBRYPSOK_CONFIG\\fR names a file.\n\
         .TP\n\\fB{}\\fR\nThe system's configuration (the packages install one), read when none of the above exists. \
         Without any file the defaults apply; \\fBrypsok check\\fR and the \\fBstarted\\fR log line name the file read.\n",
        crate::config_file::SYSTEM_FILE
    ));
    text.push_str(
        ".SH SEE ALSO\n/usr/share/doc/rypsok/README.md, /usr/share/doc/rypsok/SECURITY.md\n",
    );
    page.extend_from_slice(text.as_bytes());
    Ok(page)
}

/// The configuration file to read: the one named, else the search order's.
fn chosen(named: Option<&std::path::Path>) -> Chosen {
    crate::config_file::choose_here(named)
}

/// Loads the chosen configuration file, or the defaults when there is none.
fn load(chosen: &Chosen) -> Result<Config, Vec<ConfigProblem>> {
    match chosen.path() {
        Some(path) => crate::secrets::load_file(path),
        None => Ok(Config::defaults()),
    }
}
