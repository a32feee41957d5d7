package dev.baton.api.v1alpha1;

/** API group and version of every Baton resource. */
public final class BatonGroup {
  public static final String NAME = "baton.dev";
  public static final String VERSION = "v1alpha1";
  public static final String API_VERSION = NAME + "/" + VERSION;

  private BatonGroup() {}
}
