package dev.baton.runtime.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.runtime.ui.InstancePage.Cursor;
import dev.baton.runtime.ui.InstancePage.Row;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Keyset paging: the page cut, the next cursor, and cursors in URLs. */
class InstancePageTest {

  static Row row(int i) {
    return new Row(new UUID(0, i), "key-" + i, "RUNNING", "reserve", 1, null,
        Instant.parse("2026-01-05T10:00:00.123456Z").minusSeconds(i), null, null);
  }

  @Test
  void aFullPageLeavesACursorAtItsLastRowAndAShortOneNone() {
    List<Row> fetched = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      fetched.add(row(i));
    }
    InstancePage page = InstancePage.of(fetched, 3);
    assertThat(page.rows()).extracting(Row::businessKey).containsExactly("key-0", "key-1", "key-2");
    assertThat(page.next()).contains(new Cursor(row(2).createdAt(), row(2).id()));

    assertThat(InstancePage.of(fetched.subList(0, 3), 3).next()).isEmpty();
    assertThat(InstancePage.of(List.of(), 3).rows()).isEmpty();
  }

  @Test
  void aCursorSurvivesTheUrlToTheMicrosecond() {
    Cursor c = new Cursor(Instant.parse("2026-01-05T10:00:00.123456Z"), UUID.randomUUID());
    assertThat(Cursor.parse(c.format())).contains(c);
    assertThat(c.format()).matches("[0-9]+\\.[0-9]+~[0-9a-f-]{36}");
  }

  @Test
  void aCursorThatIsNotOneIsTheFirstPage() {
    for (String bad : new String[] {null, "", "x", "12~", "1.2~not-a-uuid", "a.b~" + UUID.randomUUID(),
        "~1.2"}) {
      assertThat(Cursor.parse(bad)).as(String.valueOf(bad)).isEmpty();
    }
  }
}
