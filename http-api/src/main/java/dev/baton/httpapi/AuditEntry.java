package dev.baton.httpapi;

import java.time.Instant;

/**
 * One action a person or a service took on an instance, as the instance shows it: who ({@code user}: the
 * Kubernetes user name a TokenReview gave, {@code static-token} or {@code static-read-token} with the runtime's own
 * tokens, {@code anonymous} on an open API), when, and from which address. Never the token itself.
 *
 * @param action {@code start}, {@code signal}, {@code retry}, {@code cancel} or {@code replay}
 * @param detail what the action named, e.g. the signal's name or {@code compensate}; null when nothing
 */
public record AuditEntry(String action, String user, Instant at, String source, String detail) {}
