"""``fakeapi envtest DIR``: controller-runtime's envtest on fakeapi.

envtest (sigs.k8s.io/controller-runtime/pkg/envtest) starts the binaries ``etcd``,
``kube-apiserver`` and ``kubectl`` it finds in ``$KUBEBUILDER_ASSETS`` (or
``$TEST_ASSET_ETCD``, ...). This command writes three such executables into DIR, each a shell
script that execs this Python on this module (``python -P -m fakeapi.cli.envtest NAME``, or its
``main`` without ``site`` and with site's directories, ``_site_directories``; the etcd on
``fakeapi.cli.envtest_etcd``), but answers ``--help`` and ``--version`` itself:

* ``kube-apiserver`` parses kube-apiserver v1.35.4's command line as kube's pflag does (every
  flag kube knows, ``kube_apiserver_flags``; an unknown one refused with kube's error) and runs
  ``fakeapi serve`` with what fakeapi honours of it (``serve_arguments``): HTTPS on
  ``--bind-address``:``--secure-port`` with the serving pair of ``--tls-cert-file`` or of
  ``--cert-dir``'s ``apiserver.crt``/``.key`` (envtest writes them), client certificates of
  ``--client-ca-file`` (envtest's users: CN the user, O the groups), ``--authorization-mode``,
  the service-account signing key, key files and issuers, the admission plugins, ... Nothing of kube-controller-manager runs (``--controllers ''``), as
  beside a lone kube-apiserver: a deleted namespace stays Terminating, as under envtest.
* ``etcd`` answers envtest's health check (``GET /health`` on ``--listen-client-urls``) and
  nothing else: fakeapi's store is in the kube-apiserver's process, which ignores
  ``--etcd-servers``.
* ``kubectl`` execs the kubectl given to this command (``--kubectl``, default the one on PATH).

Each process dies with its parent (``watch_parent``): envtest stops them with SIGTERM, and a test
binary killed outright leaves no server behind.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

from ..machinery.golang import parse_bool
from .envtest_etcd import ETCD_HELP, ETCD_VERSION, run_etcd, watch_parent
from .kube_apiserver_flags import KUBE_APISERVER_FLAGS, KUBE_APISERVER_SHORTHANDS

KUBE_VERSION = "v1.35.4"
#: kube-apiserver's flags fakeapi serve takes under the same name and meaning.
SAME_FLAGS = ("request-timeout", "max-requests-inflight", "max-mutating-requests-inflight", "event-ttl")
#: The flags whose value fakeapi honours, for the ignored-flags note (``serve_arguments``).
HONOURED_FLAGS = frozenset({
    "secure-port", "bind-address", "cert-dir", "tls-cert-file", "tls-private-key-file", "client-ca-file",
    "authorization-mode", "anonymous-auth", "token-auth-file", "service-account-issuer", "service-account-key-file",
    "service-account-signing-key-file", "enable-admission-plugins",
    "disable-admission-plugins", "enable-garbage-collector", "service-cluster-ip-range", "etcd-servers", *SAME_FLAGS,
})


class FlagError(Exception):
    """A command line kube-apiserver refuses; the message is kube's (``Error: ...``)."""


def parse_kube_flags(argv: list[str]) -> dict[str, list[str]]:
    """kube-apiserver's command line as pflag parses it: ``--name=value``, ``--name value``
    (``--name`` alone for a bool), ``-v 2``/``-v=2``/``-v2``; each flag's values in order (a
    repeated flag keeps every value; a ``strings`` flag's are split at commas by the caller)."""
    flags: dict[str, list[str]] = {}
    args = iter(argv)
    for arg in args:
        if arg == "--":
            rest = list(args)
            if rest:
                raise FlagError(f'"kube-apiserver" does not take any arguments, got {format_go_strings(rest)}')
            break
        if arg.startswith("--"):
            name, has_value, value = arg[2:].partition("=")
            shown = f"--{name}"
            if name not in KUBE_APISERVER_FLAGS:
                raise FlagError(f"unknown flag: {shown}")
        elif arg.startswith("-") and len(arg) > 1:
            short = arg[1]
            if short not in KUBE_APISERVER_SHORTHANDS:
                raise FlagError(f"unknown shorthand flag: {short!r} in {arg}")
            name, shown = KUBE_APISERVER_SHORTHANDS[short], f"{short!r} in {arg}"
            value = arg[2:]
            has_value = "=" if value else ""
            value = value.removeprefix("=")
        else:
            raise FlagError(f'"kube-apiserver" does not take any arguments, got {format_go_strings([arg])}')
        kind = KUBE_APISERVER_FLAGS[name]
        if not has_value:
            if kind == "bool" or kind.endswith("[=true]"):
                value = "true"
            else:
                value = next(args, None)
                if value is None:
                    raise FlagError(f"flag needs an argument: {shown}")
        check_value(name, kind, value)
        flags.setdefault(name, []).append(value)
    return flags


def check_value(name: str, kind: str, value: str) -> None:
    """pflag's parse of a bool or int flag's value (Go's ``strconv.ParseBool``,
    ``strconv.ParseInt(value, 0, 64)``), with kube's error; other kinds are read, if at all, by
    fakeapi serve."""
    try:
        if kind == "bool":
            parse_bool(value)
        elif kind == "int":
            int(value, 0)
    except ValueError:
        function = "ParseBool" if kind == "bool" else "ParseInt"
        raise FlagError(f'invalid argument "{value}" for "--{name}" flag: strconv.{function}: '
                        f'parsing "{value}": invalid syntax') from None


def format_go_strings(values: list[str]) -> str:
    """Go's ``%q`` of a ``[]string``."""
    return "[" + " ".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "]"


def _last(flags: dict[str, list[str]], name: str, default: str = "") -> str:
    return flags[name][-1] if name in flags else default


def _strings(flags: dict[str, list[str]], name: str) -> list[str]:
    """A ``strings`` flag's values: every occurrence's, split at commas, as pflag appends them."""
    return [item for value in flags.get(name, ()) for item in value.split(",") if item]


def _bool(flags: dict[str, list[str]], name: str, default: bool) -> bool:
    """A bool flag's last value (``parse_kube_flags`` checked it)."""
    return parse_bool(flags[name][-1]) if name in flags else default


def serving_files(flags: dict[str, list[str]]) -> list[str]:
    """fakeapi serve's flags for the serving certificate kube-apiserver would serve:
    ``--tls-cert-file`` and ``--tls-private-key-file`` (serve refuses one alone), else
    ``--cert-dir``'s ``apiserver.crt`` and ``apiserver.key`` when both exist (envtest writes them;
    kube would generate a self-signed pair there otherwise, fakeapi serves its own CA's)."""
    given = [arg for name in ("tls-cert-file", "tls-private-key-file") if name in flags
             for arg in (f"--{name}", _last(flags, name))]
    if given:
        return given
    cert_dir = Path(_last(flags, "cert-dir", "/var/run/kubernetes"))
    if (cert_dir / "apiserver.crt").is_file() and (cert_dir / "apiserver.key").is_file():
        return ["--tls-cert-file", str(cert_dir / "apiserver.crt"), "--tls-private-key-file", str(cert_dir / "apiserver.key")]
    return []


def serve_arguments(flags: dict[str, list[str]], workdir: Path) -> tuple[list[str], list[str]]:
    """``fakeapi serve``'s command line for kube-apiserver's ``flags``, fakeapi's own files
    (its CA, the kubeconfig it writes) in ``workdir``; and the notes to print about what of
    ``flags`` fakeapi does not do."""
    from ..apis.core.service_allocation import SERVICE_CLUSTER_IP_RANGE  # the server's, not loaded for --help
    from ..auth.authorization import MODES

    notes = []
    argv = ["serve", "--tls", "--controllers", "", "--cert-dir", str(workdir / "pki"),
            "--kubeconfig", str(workdir / "kubeconfig"),
            # No well-known administrator token: kube-apiserver has none (envtest's users are certificates).
            "--token", os.urandom(24).hex(),
            "--host", _last(flags, "bind-address", "0.0.0.0"), "--port", _last(flags, "secure-port", "6443"),
            "--anonymous-auth", str(_bool(flags, "anonymous-auth", True)).lower()]
    serving = serving_files(flags)
    # With a serving pair given, no CA of fakeapi's: kube-apiserver authenticates the certificates
    # of --client-ca-file alone, and has no front proxy without the --requestheader-* flags.
    argv += [*serving, "--own-ca", "false"] if serving else []
    for path in flags.get("client-ca-file", ()):
        argv += ["--client-ca-file", path]
    modes = _strings(flags, "authorization-mode") or ["AlwaysAllow"]
    served = [mode for mode in modes if mode in MODES]
    if served != modes:
        notes.append(f"authorization modes {','.join(m for m in modes if m not in served)} are not served: "
                     f"authorizing with {','.join(served) or 'AlwaysDeny (none left)'}")
    argv += ["--authorization-mode", ",".join(served) or "RBAC"]
    if "token-auth-file" in flags:
        argv += ["--token-file", _last(flags, "token-auth-file")]
    # stringArray flags: every occurrence is a value (the first issuer is the one tokens carry).
    for name in ("service-account-issuer", "service-account-key-file"):
        for value in flags.get(name, ()):
            argv += [f"--{name}", value]
    if "service-account-signing-key-file" in flags:
        argv += ["--service-account-signing-key-file", _last(flags, "service-account-signing-key-file")]
    for name in ("enable-admission-plugins", "disable-admission-plugins"):
        if name in flags:
            argv += [f"--{name}", ",".join(_strings(flags, name))]
    if not _bool(flags, "enable-garbage-collector", True):
        argv.append("--no-enable-garbage-collector")
    for name in SAME_FLAGS:
        if name in flags:
            argv += [f"--{name}", _last(flags, name)]
    service_range = _last(flags, "service-cluster-ip-range", SERVICE_CLUSTER_IP_RANGE)
    if service_range != SERVICE_CLUSTER_IP_RANGE:
        notes.append(f"--service-cluster-ip-range {service_range}: fakeapi allocates from {SERVICE_CLUSTER_IP_RANGE}")
    ignored = sorted(set(flags) - HONOURED_FLAGS)
    if ignored:
        notes.append("accepted, no effect in fakeapi: " + " ".join(f"--{name}" for name in ignored))
    return argv, notes


def help_text() -> str:
    """kube-apiserver's ``--help`` as envtest probes it (``^\\s*--flag\\b``): every flag kube
    v1.35.4 takes, each with its type and what fakeapi does with it."""
    lines = ["fakeapi's kube-apiserver: kube-apiserver v1.35.4's command line, served by `fakeapi serve`.", "",
             "Usage:", "  kube-apiserver [flags]", "", "Flags:"]
    width = max(len(name) + len(kind) for name, kind in KUBE_APISERVER_FLAGS.items()) + 4
    for name, kind in sorted(KUBE_APISERVER_FLAGS.items()):
        shown = f"--{name}" if kind == "bool" else f"--{name} {kind}"
        what = "honoured" if name in HONOURED_FLAGS else "accepted, no effect"
        if name == "etcd-servers":
            what = "accepted, no effect: the store is in the kube-apiserver's process"
        lines.append(f"      {shown.ljust(width)} {what}")
    return "\n".join(lines) + "\n"


def run_kube_apiserver(argv: list[str]) -> int:
    """The ``kube-apiserver`` executable: kube's flags, fakeapi serve's server."""
    if {"-h", "--help"} & set(argv):
        sys.stdout.write(help_text())
        return 0
    try:
        flags = parse_kube_flags(argv)
    except FlagError as err:
        print(f"Error: {err}", file=sys.stderr)
        return 1
    if "version" in flags and _last(flags, "version") != "false":
        print(f"Kubernetes {KUBE_VERSION}")
        return 0
    # Listening from the start, before the server's modules load (most of a start): envtest
    # polls /healthz every 100 ms, and a poll that connects now waits for the server's answer
    # instead of being refused and trying again up to 100 ms after the server is ready.
    from .sockets import listening_socket

    try:
        listener = listening_socket(_last(flags, "bind-address", "0.0.0.0"), int(_last(flags, "secure-port", "6443"), 0))
    except OSError as err:
        print(f"fakeapi: {err}", file=sys.stderr)
        return 1
    cert_dir = flags.get("cert-dir")
    # fakeapi's own CA and kubeconfig go where kube keeps what it generates (envtest removes it),
    # else in a directory of their own removed at exit.
    workdir = Path(cert_dir[-1]) / "fakeapi" if cert_dir else Path(tempfile.mkdtemp(prefix="fakeapi-envtest-"))
    try:
        serve_argv, notes = serve_arguments(flags, workdir)
        for note in notes:
            print(f"fakeapi: kube-apiserver: {note}", file=sys.stderr, flush=True)
        # serve's parser alone: every command's would load every command (a second, of a start's three)
        from ..runtime import collector_paused

        with collector_paused():  # from before serve's imports until its heap is settled (runtime.settle_heap)
            from . import serve
            from .main import build_parser

            watch_parent(lambda: os.kill(os.getpid(), signal.SIGTERM))
            serve.run(build_parser(("serve",)).parse_args(serve_argv), serve_argv, listener)
    finally:
        if not cert_dir:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


LAUNCHER = """#!/bin/sh
# Written by `fakeapi envtest`: envtest's {name}, served by fakeapi ({module}).
{answers}{env}exec {python} {arguments} "$@"
"""
#: What a launcher answers itself: envtest runs ``kube-apiserver --help`` and ``etcd --help``
#: before it starts each (to learn their flags), and a Python start to print a text costs its
#: start a tenth of a second each time. A command line of one of these words alone is answered
#: by the shell with the very text the Python module prints for it; any other goes to Python.
ANSWERS = """# envtest asks for --help before each start: answered here, as the Python module answers it.
if [ $# -eq 1 ]; then
  case "$1" in
{cases}  esac
fi
"""
ANSWER = """    {words}) cat <<'{end}'
{text}{end}
      exit 0;;
"""
END_OF_TEXT = "END_OF_FAKEAPI_TEXT"
KUBECTL_LAUNCHER = """#!/bin/sh
# Written by `fakeapi envtest`: envtest's kubectl.
exec {kubectl} "$@"
"""
MISSING_KUBECTL = """#!/bin/sh
# Written by `fakeapi envtest`, which found no kubectl (give it one with --kubectl).
echo "fakeapi envtest found no kubectl when it wrote $0: run it again with --kubectl PATH" >&2
exit 127
"""


def write_assets(directory: Path, kubectl: str | None) -> None:
    """Writes ``kube-apiserver``, ``etcd`` and ``kubectl`` into ``directory``: this Python on this
    fakeapi (its source directory first on PYTHONPATH, so a checkout runs as it is; ``-P`` keeps the
    working directory, which may hold another fakeapi, off the path). fakeapi's bytecode is
    compiled here, once, whatever PYTHONDONTWRITEBYTECODE says: a start that compiles fakeapi's
    sources takes twice the CPU of one that reads their bytecode."""
    import compileall  # here, not on the kube-apiserver's start

    directory.mkdir(parents=True, exist_ok=True)
    package_parent = Path(__file__).resolve().parents[2]
    compileall.compile_dir(package_parent / "fakeapi", quiet=2)
    env = f"PYTHONPATH={shlex.quote(str(package_parent))}${{PYTHONPATH:+:$PYTHONPATH}} "
    python = shlex.quote(sys.executable)
    site_directories = _site_directories()
    if site_directories is None:
        server_start = "-P -m fakeapi.cli.envtest kube-apiserver"
    else:  # site's directories, after the standard library's as site puts them, without site's start
        code = f"import sys; sys.path += {site_directories!r}; from fakeapi.cli.envtest import main; sys.exit(main())"
        server_start = f"-S -P -c {shlex.quote(code)} kube-apiserver"
    scripts = {
        "kube-apiserver": LAUNCHER.format(
            name="kube-apiserver", module=package_parent, env=env, python=python, arguments=server_start,
            answers=shell_answers({("--help", "-h"): help_text(), ("--version",): f"Kubernetes {KUBE_VERSION}\n"})),
        # Without site (-S): the health responder needs the standard library alone (envtest_etcd).
        "etcd": LAUNCHER.format(
            name="etcd", module=package_parent, env=env, python=python,
            arguments="-S -P -m fakeapi.cli.envtest_etcd",
            answers=shell_answers({("--help", "-h", "-help"): ETCD_HELP,
                                   ("--version", "-version"): f"etcd Version: {ETCD_VERSION}\n"})),
    }
    # The kubectl as found, symlinks kept: one may be a dispatcher that reads the name it runs by.
    scripts["kubectl"] = (KUBECTL_LAUNCHER.format(kubectl=shlex.quote(os.path.abspath(kubectl)))
                          if kubectl else MISSING_KUBECTL)
    for name, text in scripts.items():
        temporary = directory / f".{name}.new"
        temporary.write_text(text)
        temporary.chmod(0o755)
        temporary.replace(directory / name)  # a running suite never sees half a script


def _site_directories() -> list[str] | None:
    """The directories ``site`` adds to this Python's path (its site-packages, and those their
    ``.pth`` files name), for a kube-apiserver that starts without ``site`` (``-S``): site's start
    is 28 ms of the server's ~0.8 s, most of it the import hook of an editable install of fakeapi,
    which PYTHONPATH makes needless. None (start with site) when a ``.pth`` file runs code other
    than that hook or setuptools' distutils shim: an import hook the server may need."""
    import json
    import subprocess

    def path(*options: str) -> list[str]:
        environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
        result = subprocess.run([sys.executable, *options, "-P", "-c", "import json, sys; print(json.dumps(sys.path))"],
                                capture_output=True, text=True, env=environment, check=True)
        return list(json.loads(result.stdout))

    without = set(path("-S"))
    added = [directory for directory in path() if directory not in without]
    for directory in added:
        for pth in Path(directory).glob("*.pth"):
            for line in pth.read_text(errors="replace").splitlines():
                if line.startswith(("import ", "import\t")) and not any(
                        known in line for known in ("__editable___fakeapi_", "_distutils_hack")):
                    return None
    return added


def main() -> int:
    """``python -m fakeapi.cli.envtest NAME ARGS...``: NAME's executable (the launchers' entry)."""
    # etcd is envtest_etcd's; served here too for the launchers an earlier `fakeapi envtest` wrote.
    commands = {"kube-apiserver": run_kube_apiserver, "etcd": run_etcd}
    return commands[sys.argv[1]](sys.argv[2:])


def shell_answers(answers: dict[tuple[str, ...], str]) -> str:
    """The launcher's lines that print ``answers[words]`` and exit 0 when the command line is
    one of ``words`` alone (``ANSWERS``)."""
    for text in answers.values():
        assert text.endswith("\n") and END_OF_TEXT not in text.splitlines()
    cases = "".join(ANSWER.format(words="|".join(words), text=text, end=END_OF_TEXT) for words, text in answers.items())
    return ANSWERS.format(cases=cases)


def add_parser(sub: Any) -> None:
    p = sub.add_parser("envtest", help="write envtest's kube-apiserver, etcd and kubectl, served by fakeapi",
                       description="Writes executables named kube-apiserver, etcd and kubectl into DIR, so that "
                                   "KUBEBUILDER_ASSETS=DIR go test ./... runs controller-runtime's envtest on "
                                   "fakeapi (docs/testing.md).")
    p.add_argument("dir", type=Path, metavar="DIR", help="where to write them (made if missing)")
    p.add_argument("--kubectl", metavar="PATH",
                   help="the kubectl the written kubectl runs (default: the one on PATH)")


def run(args: Any) -> None:
    kubectl = shutil.which(args.kubectl or "kubectl")
    if args.kubectl is not None and kubectl is None:
        raise SystemExit(f"fakeapi: --kubectl {args.kubectl}: not an executable")
    write_assets(args.dir, kubectl)
    if kubectl is None:
        print("fakeapi: no kubectl on PATH: the written kubectl says so (--kubectl PATH)", file=sys.stderr)
    print(f"export KUBEBUILDER_ASSETS={shlex.quote(str(args.dir.resolve()))}")


if __name__ == "__main__":
    sys.exit(main())
