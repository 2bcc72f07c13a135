"""adi live mode's launcher: debugpy runs this file, and it runs the target as python would.

It takes one argument, a JSON object: {"mode": "script"|"module"|"code", "path", "module",
"code", "argv": [...], "stdin": path or "", "dump": path, "token": str, "probe": dir}. It:

- starts the target with the probe's own `adi_probe.target` (from the probe directory `probe`),
  so a program sees the same sys.argv, sys.path[0], __main__ and stdin live as in a recording;
  standard input is the command's "< file", or /dev/null, so that a read gets end of file
  instead of waiting forever;
- makes SIGUSR1 suspend the main thread where it is, with the interrupted frame on top (adi's
  watchdog sends it when a DAP pause does not land: `while True: pass` makes no line event, a
  sleep none until it returns);
- registers a faulthandler dump of every thread on SIGUSR2 (adi asks for it when even that fails);
- imports adi_live, the helper interact calls, and runs the target;
- with a "watch" key (an object: adi_probe.watch's config, PROTOCOL.md "Watching in a live
  process"), calls adi_probe.watch.start with it in the main thread just before the target runs,
  so that `watch FUNC` can record its invocations (a problem is one "adi: watch: ..." line on
  stderr; the target runs anyway); the environment variable ADI_LIVE_NO_WATCH_RECORDER=1 leaves
  the recorder out (only for `make bench`, which measures what the idle recorder costs: `watch`
  then finds no recorder to talk to).

Exceptions and SystemExit reach debugpy as they would without it. On the way the launcher notes the
exit status, and an atexit handler registered before the target's (so it runs after them, once the
program's threads are done) writes it to stderr as one marker, "\0adi-live-TOKEN exit STATUS\0",
which adi takes out of the output: adi learns that the program finished without waiting for the
interpreter's teardown under the debugger (most of a second). adi's launch rules hide this
directory and the probe's, so none of their frames shows in a stack. Standard library only (and pydevd, which runs
it).
"""

import atexit
import faulthandler
import json
import os
import signal
import sys
import threading


def _dump(path):
    if not path or not hasattr(signal, "SIGUSR2"):
        return
    f = open(path, "w")
    f.write("main 0x%016x\n" % threading.main_thread().ident)
    f.flush()
    faulthandler.register(signal.SIGUSR2, file=f, all_threads=True)


def _pause_on_signal():
    if not hasattr(signal, "SIGUSR1"):
        return

    def pause(signum, frame):
        # Suspend this thread with the interrupted frame on top, as pydevd does at a breakpoint
        # (debugpy.breakpoint() would step to the caller's next line event, which a loop like
        # `while True: pass` never makes).
        try:
            import pydevd
            from _pydevd_bundle.pydevd_comm_constants import CMD_THREAD_SUSPEND
            py_db = pydevd.get_global_debugger()
            thread = threading.current_thread()
            py_db.set_suspend(thread, CMD_THREAD_SUSPEND, suspend_other_threads=True, is_pause=True)
            py_db.do_wait_suspend(thread, frame, "line", None)
        except Exception:
            try:
                import debugpy
                debugpy.breakpoint()
            except Exception:
                pass

    signal.signal(signal.SIGUSR1, pause)


def _report(token, status):
    try:
        os.write(2, ("\0adi-live-%s exit %d\0" % (token, status[0])).encode("ascii"))
    except OSError:
        pass


def main():
    cfg = json.loads(sys.argv[1])
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        del sys.path[0]
    sys.path[:0] = [here, cfg["probe"]]
    import adi_live  # interact calls adi_live.interact by name
    from adi_probe import target  # the probe's way of starting a target, shared with recordings
    watch = None
    if cfg.get("watch") is not None and not os.environ.get("ADI_LIVE_NO_WATCH_RECORDER"):
        from adi_probe import watch  # watching functions in this live process
    del sys.path[:2]
    adi_live.hide_launcher_frames(here, cfg["probe"])
    status = [1]
    if cfg.get("token"):
        atexit.register(_report, cfg["token"], status)
    try:
        _run(cfg, target, watch)
        status[0] = 0
    except SystemExit as exc:
        status[0] = target.exit_status(exc.code)
        raise
    except KeyboardInterrupt:
        status[0] = 130
        raise


def _run(cfg, target, watch=None):
    _dump(cfg.get("dump", ""))
    _pause_on_signal()
    spec = {"mode": cfg["mode"], "path": cfg.get("path"), "module": cfg.get("module"), "code": cfg.get("code"),
            "argv": cfg.get("argv") or [], "stdin": cfg.get("stdin") or os.devnull}
    try:
        runnable = target.prepare(spec)
    except target.LaunchError as exc:
        sys.stderr.write("adi: %s\n" % exc)
        sys.exit(2)
    try:
        code, mod_spec = target.load(runnable)
    except ImportError as exc:
        if runnable[0] != "module":
            raise
        sys.stderr.write("%s: %s\n" % (sys.executable, exc))  # what python -m prints
        sys.exit(1)
    if watch is not None:
        wcfg = dict(cfg["watch"])
        if wcfg.get("watches_file"):  # the watches set before the program started
            try:
                with open(wcfg["watches_file"]) as f:
                    wcfg["watches"] = json.load(f)
            except (OSError, ValueError) as exc:
                sys.stderr.write("adi: watch: cannot read %s: %s\n" % (wcfg["watches_file"], exc))
        answer = json.loads(watch.start(wcfg))
        if "error" in answer:
            sys.stderr.write("adi: watch: %s\n" % answer["error"])
    target.run(code, mod_spec, runnable[3])

if __name__ == "__main__":
    main()
