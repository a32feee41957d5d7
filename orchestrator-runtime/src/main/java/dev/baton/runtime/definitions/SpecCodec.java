package dev.baton.runtime.definitions;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.baton.api.json.Json;
import dev.baton.api.v1alpha1.WorkflowSpec;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** A Workflow spec as stored: canonical JSON (sorted keys) and its SHA-256, which tells revisions apart. */
public final class SpecCodec {

  private SpecCodec() {}

  /**
   * Canonical JSON of the typed spec: fields the runtime does not know do not make a new revision, nor do the fields
   * that govern the Workflow rather than its instances ({@code paused}, {@code schedules}: read from the live spec).
   */
  public static String canonicalJson(WorkflowSpec spec) {
    try {
      if (spec.getPaused() != null || spec.getSchedules() != null) {
        WorkflowSpec forInstances = Json.CANONICAL.convertValue(spec, WorkflowSpec.class);
        forInstances.setPaused(null);
        forInstances.setSchedules(null);
        return Json.CANONICAL.writeValueAsString(forInstances);
      }
      return Json.CANONICAL.writeValueAsString(spec);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static String hash(String canonicalJson) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonicalJson.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }

  public static WorkflowSpec parse(String json) {
    try {
      return Json.CANONICAL.readValue(json, WorkflowSpec.class);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
