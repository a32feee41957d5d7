package dev.baton.runtime.store;

/**
 * Where the database is and how many connections to keep.
 *
 * @param password never logged
 */
public record DatabaseSettings(String url, String user, String password, boolean createDatabase, int poolSize) {

  @Override
  public String toString() {
    return "DatabaseSettings[url=" + Database.withoutQuery(url) + ", user=" + user + ", poolSize=" + poolSize + "]";
  }
}
