package dev.baton.sandbox;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.MockResponse;
import java.lang.reflect.Field;
import java.net.HttpURLConnection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.function.Supplier;

/**
 * fabric8's CRUD store that finds one named object through an index ({@link StoredKeysByName}) where fabric8 matches
 * the request against every stored object: the GET of one object and the look-up before each create, update and
 * patch. With thousands of objects those scans, on the mock server's single event loop, set the pace of whatever
 * drives it (the operator at scale); answers are otherwise fabric8's own. Lists, selectors, watches and deletes, and
 * the rare query that more than one stored object matches (fabric8 answers with the first in its order), still go to
 * fabric8's scan.
 *
 * <p>The index changes where the store does, in {@link #processEvent} and {@link #reset}, under fabric8's own lock
 * (its writes hold the write lock; a GET answered here holds the read lock, as fabric8's do). {@link #getMap()} is
 * read-only: a write through it would bypass the index.
 */
public final class IndexedCrudDispatcher extends KubernetesCrudDispatcher {

  /** Named look-ups answered by the index, and those left to fabric8's scan. */
  record Lookups(long indexed, long scanned) {
  }

  private final ReadWriteLock storeLock = storeLockOf(this);
  private final StoredKeysByName index = new StoredKeysByName();
  private final KubernetesAttributesExtractor extractor = (KubernetesAttributesExtractor) attributeExtractor;
  private final LongAdder indexed = new LongAdder();
  private final LongAdder scanned = new LongAdder();

  public IndexedCrudDispatcher() {
    super(List.of());
  }

  @Override
  public MockResponse handleGet(String path) {
    // A query string may ask for a watch or carry selectors: fabric8 reads those.
    if (path.indexOf('?') < 0) {
      AttributeSet query = getKey(path);
      if (StoredKeysByName.answers(query)) {
        List<Map.Entry<AttributeSet, String>> found = holding(storeLock.readLock(), () -> index.matching(query, map));
        if (found.size() <= 1) {
          indexed.increment();
          return found.isEmpty() ? new MockResponse().setResponseCode(HttpURLConnection.HTTP_NOT_FOUND)
              : new MockResponse().setBody(found.get(0).getValue()).setResponseCode(HttpURLConnection.HTTP_OK);
        }
        scanned.increment();
      }
    }
    return super.handleGet(path);
  }

  /** Called by fabric8's handlers, which hold the write lock. */
  @Override
  public Map.Entry<AttributeSet, String> findResource(AttributeSet attributes) {
    if (StoredKeysByName.answers(attributes)) {
      List<Map.Entry<AttributeSet, String>> found = index.matching(attributes, map);
      if (found.size() <= 1) {
        indexed.increment();
        return found.isEmpty() ? null : found.get(0);
      }
    }
    scanned.increment();
    return super.findResource(attributes);
  }

  /** Every change to the store comes through here, under the write lock: the index follows it. */
  @Override
  public void processEvent(String path, AttributeSet pathAttributes, AttributeSet oldAttributes,
      GenericKubernetesResource resource, String newState) {
    AttributeSet newAttributes = null;
    try {
      newAttributes = newState == null ? null : storedKey(pathAttributes, resource, newState);
    } catch (RuntimeException e) {
      // fabric8 fails the same way, but only after it has removed the old object: let it
    }
    try {
      super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
    } finally {
      // also after a failure (a watcher that cannot be told, say), the store having changed before it
      if (oldAttributes != null && !map.containsKey(oldAttributes)) {
        index.remove(oldAttributes);
      }
      if (newAttributes != null && map.containsKey(newAttributes)) {
        index.add(newAttributes);
      } else if (newState != null) {
        // not foreseen, or filed under another key than foreseen: refile all rather than miss it
        index.rebuild(map);
      }
    }
  }

  /**
   * The key fabric8 stores {@code newState} under: the object's own attributes, with the request path's when the
   * object does not say its plural (a custom resource of a kind no CRD has announced).
   */
  private AttributeSet storedKey(AttributeSet pathAttributes, GenericKubernetesResource resource, String newState) {
    AttributeSet own = resource != null ? extractor.extract(resource) : extractor.fromResource(newState);
    return own.containsKey(KubernetesAttributesExtractor.PLURAL) ? own : AttributeSet.merge(pathAttributes, own);
  }

  @Override
  public void reset() {
    holding(storeLock.writeLock(), () -> {
      super.reset();
      index.clear();
      return null;
    });
  }

  // The generic store's writes, which fabric8's Kubernetes store never calls itself: kept working, and indexed.

  @Override
  public MockResponse handleCreate(String path, String s) {
    return reindexedAfter(() -> super.handleCreate(path, s));
  }

  @Override
  public MockResponse handlePatch(String path, String s) {
    return reindexedAfter(() -> super.handlePatch(path, s));
  }

  @Override
  public MockResponse handleUpdate(String path, String s) {
    return reindexedAfter(() -> super.handleUpdate(path, s));
  }

  private MockResponse reindexedAfter(Supplier<MockResponse> write) {
    return holding(storeLock.writeLock(), () -> {
      MockResponse response = write.get();
      index.rebuild(map);
      return response;
    });
  }

  @Override
  public Map<AttributeSet, String> getMap() {
    return Collections.unmodifiableMap(map);
  }

  Lookups lookups() {
    return new Lookups(indexed.sum(), scanned.sum());
  }

  private static <T> T holding(Lock lock, Supplier<T> action) {
    lock.lock();
    try {
      return action.get();
    } finally {
      lock.unlock();
    }
  }

  /** fabric8 guards its store with a private lock and offers no way to take it; the index must share it. */
  private static ReadWriteLock storeLockOf(KubernetesCrudDispatcher store) {
    try {
      Field lock = KubernetesCrudDispatcher.class.getDeclaredField("lock");
      lock.setAccessible(true);
      return (ReadWriteLock) lock.get(store);
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException("fabric8's KubernetesCrudDispatcher no longer keeps its store's lock in a field"
          + " 'lock' (a ReadWriteLock): IndexedCrudDispatcher needs to follow its new locking", e);
    }
  }
}
