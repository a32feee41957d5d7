package dev.baton.operator;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock a unit test moves by hand. */
public final class TestClock extends Clock {

  private volatile Instant now = Instant.parse("2026-01-05T10:00:00Z");

  @Override
  public ZoneOffset getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return now;
  }

  public void advance(Duration by) {
    now = now.plus(by);
  }
}
