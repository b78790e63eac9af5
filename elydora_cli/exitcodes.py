"""The CLI's exit codes (documented in the README)."""

OK = 0
UNHEALTHY = 1  # unhealthy status, refused operation, or an error in a file
USAGE = 2  # bad flags or arguments
CONFLICT = 3  # a concurrent change was detected or the state lock is held
RECOVERY = 4  # an interrupted transaction needs `elydora recover`
INTERRUPTED = 130
PIPE_CLOSED = 141  # the reader of stdout went away (`elydora ... | head`): 128 + SIGPIPE, as a shell shows git's
