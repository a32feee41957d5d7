package dev.baton.bench;

/** The limit sweep's figure: a limited point against the unlimited points on either side of it. */
final class LimitRatio {

  private LimitRatio() {}

  /**
   * The limited point's steps/s over the mean of the unlimited points measured just before and just after it: a
   * machine whose speed drifts during the sweep (other work starting or ending) moves both sides alike, where a ratio
   * to the point before alone would count the drift as the limit's cost.
   */
  static double bracketed(double noLimitBefore, double limited, double noLimitAfter) {
    return limited / ((noLimitBefore + noLimitAfter) / 2);
  }
}
