"""The bottom layer: errors, the immutable records, the result list, the annotation and label
keys more than one layer needs, SIGTERM and SIGHUP handled as SIGINT, and plain data (a
copy; a value's type in a message's words), and `re` imported when a pattern is first used
(patterns). Imports nothing of krm_fn."""
