package dev.baton.httpapi;

import java.util.List;

/**
 * {@code GET /api/v1/whoami}: the caller as the runtime sees its token.
 *
 * @param user the Kubernetes user name a TokenReview gave, {@code static-token}, {@code static-read-token} or
 *     {@code anonymous} (an open API)
 * @param groups the user's groups (Kubernetes mode), else empty
 * @param auth how the runtime checks callers: {@code kubernetes}, {@code token} or {@code open}
 */
public record WhoAmI(String user, List<String> groups, String auth) {}
