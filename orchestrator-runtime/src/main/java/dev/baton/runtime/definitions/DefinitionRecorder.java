package dev.baton.runtime.definitions;

import dev.baton.api.v1alpha1.Workflow;
import dev.baton.runtime.store.Database;
import java.sql.SQLException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reacts to the Workflow watch: a new or changed Workflow gets its revision recorded (best effort: a start records it
 * anyway) and its orchestrator queue consumed; a deleted one lets the consumers reconsider which queues they need.
 */
public final class DefinitionRecorder implements WorkflowWatcher.Listener {

  private static final Logger LOG = LoggerFactory.getLogger(DefinitionRecorder.class);

  private final Database database;
  private final DefinitionCatalog catalog;
  private final Consumer<String> queueWanted;
  private final Runnable workflowGone;

  public DefinitionRecorder(Database database, DefinitionCatalog catalog, Consumer<String> queueWanted,
      Runnable workflowGone) {
    this.database = database;
    this.catalog = catalog;
    this.queueWanted = queueWanted;
    this.workflowGone = workflowGone;
  }

  @Override
  public void changed(Workflow workflow) {
    String ns = workflow.getMetadata().getNamespace();
    String name = workflow.getMetadata().getName();
    queueWanted.accept(name);
    if (workflow.getSpec() == null) {
      return;
    }
    try {
      int revision = database.inTransaction(c -> catalog.current(c, ns, name, workflow.getSpec()).revision());
      LOG.info("Workflow {}/{} is at revision {}", ns, name, revision);
    } catch (IllegalArgumentException e) {
      LOG.info("Workflow {}/{} cannot be run as it is: {}", ns, name, e.getMessage());
    } catch (SQLException | RuntimeException e) {
      LOG.warn("Recording the revision of Workflow {}/{} failed (it is recorded at the next start): {}", ns, name,
          e.toString());
    }
  }

  @Override
  public void deleted(Workflow workflow) {
    LOG.info("Workflow {}/{} deleted; its running instances finish on their revision",
        workflow.getMetadata().getNamespace(), workflow.getMetadata().getName());
    workflowGone.run();
  }
}
