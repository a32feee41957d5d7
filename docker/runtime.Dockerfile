# syntax=docker/dockerfile:1.7
#
# The Baton orchestrator runtime image (dev.baton.runtime.app.Main), as the Helm chart runs it (helm/baton, runtime.image).
#
# Build from the repository root:
#   docker build -f docker/runtime.Dockerfile -t baton-runtime:0.1.0 .
#
# Settings come from BATON_* environment variables (orchestrator-runtime/src/main/java/dev/baton/runtime/
# RuntimeSettings.java); set BATON_HTTP_HOST=0.0.0.0 in a container (the chart does). HTTP API, /healthz and /metrics
# on 8080. The process runs as uid 10001 and writes only to /tmp, so it runs with readOnlyRootFilesystem and an
# emptyDir at /tmp.

FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
# The runtime and the modules it needs, installed in the build container's local repository so that the second
# command can list the runtime's own runtime classpath (and nothing of the other modules built along with it).
RUN --mount=type=cache,target=/root/.m2 \
    mvn -B -q -pl orchestrator-runtime -am -DskipTests install \
 && mvn -B -q -pl orchestrator-runtime dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=/out/lib \
 && cp orchestrator-runtime/target/baton-orchestrator-runtime-*.jar /out/lib/ \
 && rm -f /out/lib/*-sources.jar /out/lib/*-tests.jar

FROM eclipse-temurin:17-jre
LABEL org.opencontainers.image.title="baton-runtime" \
      org.opencontainers.image.description="Baton orchestrator runtime: workflow instances in PostgreSQL, step loop over RabbitMQ, HTTP API"
RUN groupadd --system --gid 10001 baton \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin baton
WORKDIR /app
COPY --from=build /out/lib/ /app/lib/
# Defaults; the chart sets its own (runtime.javaOptions). The heap follows the container's memory limit.
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError" \
    BATON_HTTP_HOST=0.0.0.0 \
    BATON_HTTP_PORT=8080
EXPOSE 8080
# Numeric, so that Kubernetes' runAsNonRoot can verify it.
USER 10001:10001
ENTRYPOINT ["java", "-cp", "/app/lib/*", "dev.baton.runtime.app.Main"]
