package dev.baton.api.crd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.Workflow;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The CRDs of the Baton resources as committed in {@code crds/} (generated from these model classes by crd-tools)
 * and packaged in this jar, where the dev API's admission and the tests read them.
 */
public final class CommittedCrds {

  /** The model classes the CRDs are generated from. */
  public static final List<Class<? extends HasMetadata>> RESOURCES =
      List.of(RetryPolicy.class, WorkerService.class, Workflow.class);

  /** Where the committed CRDs ({@code crds/}) are packaged inside the api jar. */
  public static final String CLASSPATH_DIR = "META-INF/baton/crds/";

  public static final List<String> CRD_FILES = List.of(
      "retrypolicies.baton.dev-v1.yml", "workerservices.baton.dev-v1.yml", "workflows.baton.dev-v1.yml");

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private CommittedCrds() {}

  /** A packaged CRD file as a tree. */
  public static JsonNode read(String file) {
    try (InputStream in = CommittedCrds.class.getClassLoader().getResourceAsStream(CLASSPATH_DIR + file)) {
      if (in == null) {
        throw new IllegalStateException("CRD " + file + " is not on the classpath under " + CLASSPATH_DIR);
      }
      return YAML.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every packaged CRD, as trees. */
  public static List<JsonNode> all() {
    List<JsonNode> crds = new ArrayList<>();
    for (String file : CRD_FILES) {
      crds.add(read(file));
    }
    return crds;
  }
}
