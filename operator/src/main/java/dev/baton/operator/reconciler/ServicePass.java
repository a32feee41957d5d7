package dev.baton.operator.reconciler;

import dev.baton.operator.topology.SyncReport;

/**
 * What {@link FreshPasses} keeps of a WorkerService's broker pass: what the broker held, and the password the broker
 * user was checked against (as a digest: the pass is reused only while the Secret still holds that password).
 */
record ServicePass(SyncReport report, String passwordDigest) {}
