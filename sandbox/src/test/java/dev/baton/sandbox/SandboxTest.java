package dev.baton.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The closing rules every rig relies on, with parts that need no broker, database or API server. */
class SandboxTest {

  private final List<String> closed = new ArrayList<>();

  private AutoCloseable part(String name) {
    return () -> closed.add(name);
  }

  @Test
  void closesTheLastMadeFirst() {
    Sandbox stack = Sandbox.builder("t").with(s -> s.own(part("first"))).with(s -> s.own(part("second"))).start();
    stack.own(part("third"));

    stack.close();

    assertThat(closed).containsExactly("third", "second", "first");
  }

  @Test
  void aPartThatFailsToCloseDoesNotKeepTheOthersOpen() {
    Sandbox stack = Sandbox.builder("t").start();
    stack.own(part("first"));
    stack.own(() -> {
      throw new IllegalStateException("stuck");
    });
    stack.own(part("last"));

    assertThatThrownBy(stack::close).hasMessageContaining("did not close cleanly").hasRootCauseMessage("stuck");
    assertThat(closed).containsExactly("last", "first");
  }

  @Test
  void aComponentThatFailsClosesWhatWasMadeBeforeIt() {
    assertThatThrownBy(() -> Sandbox.builder("t").with(s -> s.own(part("made")))
        .with(s -> {
          throw new IllegalStateException("does not start");
        }).start()).hasMessage("does not start");

    assertThat(closed).containsExactly("made");
  }

  @Test
  void aLayerThatFailsClosesTheStack() {
    assertThatThrownBy(() -> Sandbox.builder("t").with(s -> s.own(part("made"))).start(s -> {
      throw new java.io.IOException("no rig");
    })).isInstanceOf(IllegalStateException.class).hasMessageContaining("no rig");

    assertThat(closed).containsExactly("made");
  }

  @Test
  void aPartNotBuiltIsNamedWithTheBuilderCallThatAddsIt() {
    Sandbox stack = Sandbox.builder("t").start();

    assertThatThrownBy(stack::database).hasMessageContaining("database()");
    assertThatThrownBy(stack::client).hasMessageContaining("kubernetes(");
  }
}
