package dev.baton.sandbox;

import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.crud.AttributeType;
import io.fabric8.mockwebserver.crud.Value;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys of fabric8's CRUD store filed under their resource's plural and name, so that the objects a query for one
 * named resource can match are found without matching the query against every stored key.
 *
 * <p>A stored key matches a query when it has each of the query's attributes with an equal value (fabric8's
 * {@code AttributeSet.matches}); a query that names its plural and its name can therefore only match keys with that
 * plural and that name, or keys holding fabric8's wildcard value {@code *} there, which are kept aside and always
 * tried. Keys without a plural or a name, or with several values for one, never match such a query and are not
 * filed. What this returns is still checked with {@code matches} against the store as it is.
 */
final class StoredKeysByName {

  private static final String ANY = "*";

  private record Name(String plural, String name) {
  }

  private final Map<Name, Set<AttributeSet>> byName = new ConcurrentHashMap<>();
  private final Set<AttributeSet> anyName = ConcurrentHashMap.newKeySet();

  /** Whether {@code query} names one plural and one name, without wildcards: the queries the index answers. */
  static boolean answers(AttributeSet query) {
    return nameOf(query, false) != null;
  }

  void add(AttributeSet key) {
    Name name = nameOf(key, true);
    if (name == null) {
      return;
    }
    if (ANY.equals(name.plural()) || ANY.equals(name.name())) {
      anyName.add(key);
    } else {
      byName.computeIfAbsent(name, n -> ConcurrentHashMap.newKeySet()).add(key);
    }
  }

  void remove(AttributeSet key) {
    Name name = nameOf(key, true);
    if (name == null) {
      return;
    }
    anyName.remove(key);
    byName.computeIfPresent(name, (n, keys) -> {
      keys.remove(key);
      return keys.isEmpty() ? null : keys;
    });
  }

  void clear() {
    byName.clear();
    anyName.clear();
  }

  /** Files every key of {@code store} afresh. */
  void rebuild(Map<AttributeSet, String> store) {
    clear();
    synchronized (store) { // fabric8's store is a synchronized map: iterating it takes its monitor
      store.keySet().forEach(this::add);
    }
  }

  /**
   * The entries of {@code store} that match {@code query}, a query the index {@link #answers}; in no particular
   * order (fabric8 answers with the first in the store's order, so more than one needs its scan).
   */
  List<Map.Entry<AttributeSet, String>> matching(AttributeSet query, Map<AttributeSet, String> store) {
    List<Map.Entry<AttributeSet, String>> found = new ArrayList<>(1);
    collect(byName.getOrDefault(nameOf(query, false), Set.of()), query, store, found);
    collect(anyName, query, store, found);
    return found;
  }

  private static void collect(Set<AttributeSet> candidates, AttributeSet query, Map<AttributeSet, String> store,
      List<Map.Entry<AttributeSet, String>> found) {
    for (AttributeSet key : candidates) {
      String value = store.get(key);
      if (value != null && key.matches(query)) {
        found.add(new AbstractMap.SimpleImmutableEntry<>(key, value));
      }
    }
  }

  /**
   * The plural and name of a stored key or a query; null when it lacks either or has several values for one, and for
   * a query also when either is a wildcard or the query asks for anything but equality there.
   */
  private static Name nameOf(AttributeSet attributes, boolean stored) {
    String plural = single(attributes.getAttribute(KubernetesAttributesExtractor.PLURAL), stored);
    String name = single(attributes.getAttribute(KubernetesAttributesExtractor.NAME), stored);
    return plural == null || name == null ? null : new Name(plural, name);
  }

  private static String single(Attribute attribute, boolean stored) {
    if (attribute == null || attribute.getValues().size() != 1
        || !stored && attribute.getType() != AttributeType.WITH) {
      return null;
    }
    Value value = attribute.getValues().get(0);
    String text = value == null ? null : value.toString();
    return text == null || !stored && ANY.equals(text) ? null : text;
  }
}
