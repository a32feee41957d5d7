package dev.baton.devapi.cel;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.junit.jupiter.api.Test;

/** The compile cache: the same rule text at two places of a schema is compiled once and keeps each place's rule. */
class CelValidatorTest {

  @Test
  void the_same_rule_text_is_compiled_once_for_every_place_it_appears() {
    SchemaRule atSpec = rule("spec", "self == oldSelf");
    SchemaRule atQueue = rule("spec.queue", "self == oldSelf");

    CelValidator.Compiled first = CelValidator.compile(atSpec);
    CelValidator.Compiled second = CelValidator.compile(atQueue);

    assertThat(second.ast()).isSameAs(first.ast());
    assertThat(second.program()).isSameAs(first.program());
    assertThat(first.rule()).isSameAs(atSpec);
    assertThat(second.rule()).isSameAs(atQueue);
  }

  @Test
  void a_rule_that_does_not_compile_says_why_at_each_place() {
    CelValidator.Compiled broken = CelValidator.compile(rule("spec", "self.(("));

    assertThat(broken.error()).startsWith("compilation failed");
    assertThat(broken.rule().path()).isEqualTo("spec");
  }

  private static SchemaRule rule(String path, String text) {
    return new SchemaRule(path, JsonNodeFactory.instance.objectNode(), text, null, null, null, 1, false);
  }
}
