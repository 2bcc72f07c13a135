"""adi's probe: records what a Python run did, function by function (see ../PROTOCOL.md).

Modules, each with one job:
  config    the run configuration (defaults, validation)
  source    per-file AST facts: statements, their texts, loops, qualnames
  usercode  what is user code and how it is named (module:qualname)
  values    bounded reprs and fingerprints
  output    calls.bin / flt.bin batches (marshal), result.json
  recorder  T: invocations, callers, args, outcomes; selectors, conditions, expectations
  stepper   the FLT of one invocation: steps, ΔS, callees, loops, events
  engines   how interpreter events reach the recorder (settrace, setprofile, sys.monitoring)
  target    starts the target like python would (also used by adi's live-mode launcher)
  runner    runs the recording around the target and ends the run
  debugger  functions the bridge calls through DAP: hit, stopped_frame; pydevd_debugger
  execute   run(stmt): the `execute` command in the frame a stop paused
  editor    stop(), flush(): what the DAP proxy asks while an editor has a thread paused
"""

from .debugger import hit, stopped_frame


def main(config_path):
    """Run the target described by the config at `config_path`; returns the exit code."""
    from . import runner
    return runner.main(config_path)


__all__ = ["main", "hit", "stopped_frame"]
