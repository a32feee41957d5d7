package dev.baton.devapi.rbac;

/**
 * The answer to an access review. RBAC only grants: a request no rule allows is not {@code denied}, it is just not
 * allowed (as on a cluster). {@code evaluationError} names what could not be read, such as a binding to a role that
 * does not exist; empty when there was nothing wrong.
 */
public record Decision(boolean allowed, String reason, String evaluationError) {}
