package dev.baton.runtime.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.deadletters.ParkedMessage;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The dead-letter page's counts: the management statistics lag, what the peek saw does not. */
class DeadLetterDeskTest {

  static List<ParkedMessage> parked(int n) {
    return IntStream.range(0, n).mapToObj(i -> new ParkedMessage("m-" + i, "service.s.c", Map.of(), null, null))
        .toList();
  }

  @Test
  void aShortPeekIsTheCountEvenWhenTheStatisticsStillCountReplayedMessages() {
    assertThat(DeadLetterDesk.messages(1, parked(0))).isZero(); // just replayed: the statistics say 1 for seconds
    assertThat(DeadLetterDesk.messages(5, parked(2))).isEqualTo(2);
    assertThat(DeadLetterDesk.messages(1, parked(3))).isEqualTo(3); // parked since the statistics were taken
  }

  @Test
  void aFullPeekMeansAtLeastThatManyAndTheStatisticsSayHowManyMore() {
    assertThat(DeadLetterDesk.messages(500, parked(DeadLetterDesk.PEEK))).isEqualTo(500);
    assertThat(DeadLetterDesk.messages(3, parked(DeadLetterDesk.PEEK))).isEqualTo(DeadLetterDesk.PEEK);
  }

  @Test
  void anEmptyQueueIsNotPeeked() {
    assertThat(DeadLetterDesk.messages(0, List.of())).isZero();
  }
}
