# syntax=docker/dockerfile:1.7
#
# The Baton operator image (dev.baton.operator.Main), as the Helm chart runs it (helm/baton, operator.image).
#
# Build from the repository root:
#   docker build -f docker/operator.Dockerfile -t baton-operator:0.1.0 .
#
# Settings come from BATON_* environment variables (operator/src/main/java/dev/baton/operator/OperatorSettings.java);
# the cluster from the pod's service account. The process runs as uid 10001 and writes only to /tmp, so it runs with
# readOnlyRootFilesystem and an emptyDir at /tmp.

FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
# The operator and the modules it needs, installed in the build container's local repository so that the second
# command can list the operator's own runtime classpath (and nothing of the other modules built along with it).
RUN --mount=type=cache,target=/root/.m2 \
    mvn -B -q -pl operator -am -DskipTests install \
 && mvn -B -q -pl operator dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=/out/lib \
 && cp operator/target/baton-operator-*.jar /out/lib/ \
 && rm -f /out/lib/*-sources.jar /out/lib/*-tests.jar

FROM eclipse-temurin:17-jre
LABEL org.opencontainers.image.title="baton-operator" \
      org.opencontainers.image.description="Baton operator: Workflow, WorkerService and RetryPolicy to RabbitMQ topology, users, Secrets and Deployments"
RUN groupadd --system --gid 10001 baton \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin baton
WORKDIR /app
COPY --from=build /out/lib/ /app/lib/
# Defaults; the chart sets its own (operator.javaOptions). The heap follows the container's memory limit.
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError"
# Numeric, so that Kubernetes' runAsNonRoot can verify it.
USER 10001:10001
ENTRYPOINT ["java", "-cp", "/app/lib/*", "dev.baton.operator.Main"]
