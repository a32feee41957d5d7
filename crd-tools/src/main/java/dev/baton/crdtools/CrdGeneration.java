package dev.baton.crdtools;

import dev.baton.api.crd.CommittedCrds;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.crdv2.generator.CRDGenerator;
import io.fabric8.crdv2.generator.CRDPostProcessor;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Writes the CRD YAML of every Baton resource. Run at build time into {@code crd-tools/target/crds}; a test compares that
 * with the committed {@code crds/}. The fabric8 generator sorts printer columns by JSON path, which would put Age
 * first: the post-processor restores the order of the {@code @AdditionalPrinterColumn} annotations.
 */
public final class CrdGeneration {

  private CrdGeneration() {}

  public static void main(String[] args) throws IOException {
    Path out = Path.of(args.length > 0 ? args[0] : "target/crds");
    generate(out);
    System.out.println("CRDs written to " + out.toAbsolutePath());
  }

  public static void generate(Path outputDir) throws IOException {
    Files.createDirectories(outputDir);
    new CRDGenerator()
        .inOutputDir(outputDir.toFile())
        .forCRDVersions("v1")
        .withPostProcessor(new ColumnOrder(new SchemaRefinement(CommittedCrds.RESOURCES)))
        .customResourceClasses(CommittedCrds.RESOURCES)
        .detailedGenerate();
  }

  /** The generator takes one post-processor: this one, which runs {@code next} first. */
  private static final class ColumnOrder implements CRDPostProcessor {
    private final CRDPostProcessor next;

    ColumnOrder(CRDPostProcessor next) {
      this.next = next;
    }

    @Override
    public HasMetadata process(HasMetadata crd, String crdSpecVersion) {
      crd = next.process(crd, crdSpecVersion);
      if (crd instanceof CustomResourceDefinition definition) {
        String kind = definition.getSpec().getNames().getKind();
        CommittedCrds.RESOURCES.stream().filter(c -> c.getSimpleName().equals(kind)).findFirst().ifPresent(c -> {
          List<String> declared =
              Arrays.stream(c.getAnnotationsByType(AdditionalPrinterColumn.class)).map(AdditionalPrinterColumn::name).toList();
          Map<String, Integer> rank = new java.util.HashMap<>();
          for (int i = 0; i < declared.size(); i++) {
            rank.put(declared.get(i), i);
          }
          for (CustomResourceDefinitionVersion v : definition.getSpec().getVersions()) {
            if (v.getAdditionalPrinterColumns() != null) {
              v.getAdditionalPrinterColumns().sort(
                  Comparator.comparing((CustomResourceColumnDefinition col) -> rank.getOrDefault(col.getName(), Integer.MAX_VALUE)));
            }
          }
        });
      }
      return crd;
    }
  }
}
