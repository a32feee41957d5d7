package dev.baton.runtime.core;

/** What a walk over a sequence (or a group, or a map's iterations) found: all done, something in flight, a failure. */
enum Progress { DONE, WAITING, FAILED }
