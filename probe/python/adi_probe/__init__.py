"""adi's probe: records what a Python run did, function by function (see ../PROTOCOL.md).

Modules, each with one job:
  config     the run configuration (defaults, validation)
  source     per-file AST facts: statements, their texts, loops, qualnames
  oldast     the AST's end positions on 3.6/3.7, from the tokens (3.8 added them)
  compat     os.register_at_fork's hooks on 3.6
  usercode   what is user code and how it is named (module:qualname)
  values     bounded reprs, and the fingerprints of call arguments
  reprguard  library types' own reprs, run under guards so that the program cannot tell
  changes    ΔS by object identity: what one statement changed in the state a frame can see
  effects    which of a frame's roots a statement may change in place (read from its AST)
  output     calls.bin / flt.bin batches (marshal), result.json
  recorder   T: invocations, callers, args, outcomes; selectors, conditions, expectations
  stepper    the FLT of one invocation: steps, ΔS, callees, loops, events
  engines    how interpreter events reach the recorder (settrace, setprofile, sys.monitoring)
  depth      the recursion limit as the target sees it, the probe's own frames left out
  seeding    the same numbers from random's unseeded generators in every run of a session
  target     starts the target like python would (also used by adi's live-mode launcher)
  runner     runs the recording around the target and ends the run
  stop       ends a run at once when the bridge asks (SIGTERM at its time limit)
  debugger   functions the bridge calls through DAP: hit, stopped_frame; pydevd_debugger
  evaluate   the one evaluator of code run in a paused frame (exec and live interact)
  execute    the `execute` command: a statement run in a frame, by the probe alone or via DAP
  editor     stop(), flush(): what the DAP proxy asks while an editor has a thread paused
  editwatch  watching functions in an editor's recording run (its control server)
  watch      watching functions in a live process: the watch recorder and its control server
  scope      a live session's watched functions: which call starts a caught invocation
"""

from .debugger import hit, stopped_frame


def main(config_path):
    """Run the target described by the config at `config_path`; returns the exit code."""
    from . import runner
    return runner.main(config_path)


__all__ = ["main", "hit", "stopped_frame"]
