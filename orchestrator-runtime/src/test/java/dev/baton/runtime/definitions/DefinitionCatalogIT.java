package dev.baton.runtime.definitions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.DefinitionStore;
import dev.baton.runtime.store.TestDatabases;
import dev.baton.sandbox.Sandbox;
import dev.baton.workflow.WorkflowDefinition;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Revisions are remembered only once they are committed: a rolled-back start leaves nothing behind. */
class DefinitionCatalogIT {

  static Sandbox infrastructure;
  static Database database;

  @BeforeAll
  static void infrastructure() {
    infrastructure = Sandbox.builder("definitions").database().start();
    database = TestDatabases.open(infrastructure, 2);
  }

  @AfterAll
  static void close() {
    infrastructure.close();
  }

  static WorkflowSpec spec(String command) {
    WorkflowSpec spec = new WorkflowSpec();
    spec.setEntity("order");
    spec.setSteps(List.of(new StepSpec("go", "svc", command)));
    return spec;
  }

  static long revisions(String name) throws Exception {
    return database.inTransaction(c -> {
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*) FROM workflow_definition WHERE name = '" + name + "'")) {
        rs.next();
        return rs.getLong(1);
      }
    });
  }

  /**
   * Fails on the code before: the batch's second start found the revision its first start had written and remembered
   * it; the transaction rolled back, and the next start used that remembered revision without writing it, so the
   * instance named a revision the database did not have.
   */
  @Test
  void aRevisionSeenOnlyByItsOwnTransactionIsForgottenWhenThatTransactionRollsBack() throws Exception {
    DefinitionCatalog catalog = new DefinitionCatalog(new DefinitionStore());
    WorkflowSpec spec = spec("go");
    assertThatThrownBy(() -> database.inTransaction(c -> {
      catalog.current(c, "ns", "rolled", spec); // writes revision 1
      catalog.current(c, "ns", "rolled", spec); // finds it, in this transaction only
      throw new IllegalStateException("the batch fails");
    })).hasMessageContaining("the batch fails");
    assertThat(revisions("rolled")).isZero();

    WorkflowDefinition again = database.inTransaction(c -> catalog.current(c, "ns", "rolled", spec));
    assertThat(again.revision()).isEqualTo(1);
    assertThat(revisions("rolled")).as("written again, and committed this time").isEqualTo(1);
    WorkflowDefinition next = database.inTransaction(c -> catalog.current(c, "ns", "rolled", spec("other")));
    assertThat(next.revision()).isEqualTo(2);
  }

  @Test
  void aCommittedRevisionIsRememberedAndThenServedWithoutTheDatabase() throws Exception {
    DefinitionCatalog catalog = new DefinitionCatalog(new DefinitionStore());
    WorkflowSpec spec = spec("go");
    int revision = database.inTransaction(c -> catalog.current(c, "ns", "kept", spec)).revision();
    database.inTransaction(c -> catalog.current(c, "ns", "kept", spec)); // committed now: remembered
    database.inTransaction(c -> {
      try (Statement s = c.createStatement()) {
        s.execute("DELETE FROM workflow_definition WHERE name = 'kept'"); // only the catalog knows it now
      }
      return null;
    });
    assertThat(database.inTransaction(c -> catalog.current(c, "ns", "kept", spec)).revision()).isEqualTo(revision);
    assertThat(revisions("kept")).as("served from memory, not written again").isZero();
  }
}
