package dev.baton.httpapi;

/** {@code GET /livez}: the process answers ({@code status} is always {@code UP}); what is down is /healthz's. */
public record Liveness(String status) {}
