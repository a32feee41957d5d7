package dev.baton.examples;

import dev.baton.worker.BatonWorker;
import dev.baton.worker.CommandResult;
import java.math.BigDecimal;
import java.util.Map;

/**
 * {@code risk}: {@code score} rates an order for fraud, 0 (fine) to 100 (surely fraud); the order-approval Workflow
 * asks a person to approve an order scored over 80. The rule is a stand-in, chosen to be easy to steer by hand: input
 * {@code score} is taken as it is (0..100), else a card {@code "stolen"} scores 95 and any other order 10.
 */
public final class RiskWorker implements ExampleWorker {

  /** What {@code score} reads from the order. */
  public record ScoreInput(Integer score, String card, BigDecimal amount) {}

  /** In a container: {@code java -cp baton-examples-workers-all.jar dev.baton.examples.RiskWorker}. */
  public static void main(String[] args) {
    ExampleMain.run(new RiskWorker());
  }

  @Override
  public String service() {
    return "risk";
  }

  @Override
  public BatonWorker.Builder handlers(BatonWorker.Builder builder) {
    return builder.command("score", cmd -> score(cmd.inputAs(ScoreInput.class)));
  }

  public CommandResult score(ScoreInput in) {
    int score = in.score() != null ? Math.max(0, Math.min(100, in.score()))
        : "stolen".equalsIgnoreCase(in.card()) ? 95 : 10;
    return CommandResult.success(Map.of("score", score));
  }
}
