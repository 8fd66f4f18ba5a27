package io.fleetbus.hub.cluster;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryExpiredListener;
import com.hazelcast.map.listener.EntryRemovedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import io.fleetbus.shared.trust.SealedBox;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Hazelcast map of state the hubs share (backed up on another hub, see cluster.xml), with JSON values
 * sealed by the fleet's store key: nodes are cluster members too and could read a map, so they see only
 * ciphertext. Every method answers on the calling verticle's context; blocking Hazelcast calls run on a
 * worker. Sealing a record (AES-GCM over a few hundred bytes, ~10 µs) stays on the caller's thread, as the
 * directive signature does; whole-map reads decrypt on a worker.
 */
public final class SharedMap {
  private static final Logger LOG = LoggerFactory.getLogger(SharedMap.class);

  /** A value and the exact stored form, which a compare-and-set names as the value it expects. */
  public record Entry(String key, JsonObject value, String stored) {
  }

  private final IMap<String, String> map;
  private final byte[] storeKey;
  private final String purpose;
  private final long ttlMs;

  SharedMap(IMap<String, String> map, byte[] storeKey, long ttlMs) {
    this.map = map;
    this.storeKey = storeKey;
    this.purpose = "shared:" + map.getName();
    this.ttlMs = ttlMs;
  }

  public String name() {
    return map.getName();
  }

  public Future<Entry> get(Context ctx, String key) {
    return onContext(map.getAsync(key), ctx).map(stored -> stored == null ? null : open(key, stored));
  }

  /** Writes the value (the map's time to live applies); completes once a backup holds it as well. */
  public Future<Void> set(Context ctx, String key, JsonObject value) {
    return onContext(map.setAsync(key, seal(key, value), ttlMs, TimeUnit.MILLISECONDS), ctx);
  }

  /** Writes the value, forgotten {@code ttlMs} after this write (whatever the map's own time to live). */
  public Future<Void> set(Context ctx, String key, JsonObject value, long ttlMs) {
    return onContext(map.setAsync(key, seal(key, value), Math.max(1, ttlMs), TimeUnit.MILLISECONDS), ctx);
  }

  /**
   * Writes the values in one round trip per partition owner instead of one per key (a map with a time to live writes
   * them one by one: a batch write knows no per-entry time to live); completes once backups hold them as well.
   */
  public Future<Void> setAll(Context ctx, Map<String, JsonObject> values) {
    if (ttlMs > 0 || values.size() == 1) {
      return Future.all(values.entrySet().stream().map(e -> set(ctx, e.getKey(), e.getValue())).toList()).mapEmpty();
    }
    Map<String, String> sealed = new HashMap<>();
    values.forEach((key, value) -> sealed.put(key, seal(key, value)));
    return onContext(map.setAllAsync(sealed), ctx);
  }

  /** Writes the value unless the key is taken; answers the value already there (null when this one was written). */
  public Future<Entry> putIfAbsent(Context ctx, String key, JsonObject value) {
    String sealed = seal(key, value);
    return ctx.owner().executeBlocking(() -> map.putIfAbsent(key, sealed, ttlMs, TimeUnit.MILLISECONDS), false)
      .map(earlier -> earlier == null ? null : open(key, earlier));
  }

  /** Compare-and-set: true when {@code expected} was still the stored value and {@code next} replaced it. */
  public Future<Boolean> replace(Context ctx, Entry expected, JsonObject next) {
    String sealed = seal(expected.key(), next);
    return ctx.owner().executeBlocking(() -> map.replace(expected.key(), expected.stored(), sealed), false);
  }

  public Future<Void> remove(Context ctx, String key) {
    return onContext(map.removeAsync(key), ctx).mapEmpty();
  }

  /** Every entry (startup only: it reads the whole map). Entries that do not open with our key are skipped. */
  public Future<List<Entry>> entries(Context ctx) {
    return ctx.owner().executeBlocking(() -> {
      List<Entry> out = new ArrayList<>();
      map.entrySet().forEach(e -> {
        Entry opened = tryOpen(e.getKey(), e.getValue());
        if (opened != null) {
          out.add(opened);
        }
      });
      return out;
    }, false);
  }

  /**
   * Changes made by other hubs, on {@code ctx}: {@code (key, value)} for a write, {@code (key, null)} when the
   * entry was removed or expired. Returns the registration, for {@link #stopListening}.
   */
  public UUID listen(Context ctx, BiConsumer<String, JsonObject> onChange) {
    return map.addEntryListener(new Listener(ctx, onChange, false), true);
  }

  /** As {@link #listen} for one key, including this hub's own writes (a waiter does not care who wrote). */
  public UUID listen(Context ctx, String key, BiConsumer<String, JsonObject> onChange) {
    return map.addEntryListener(new Listener(ctx, onChange, true), key, true);
  }

  public void stopListening(UUID registration) {
    try {
      map.removeEntryListener(registration);
    } catch (RuntimeException e) {
      LOG.debug("listener already gone [map: {}]", map.getName(), e);
    }
  }

  /**
   * Hazelcast's answer, on {@code ctx}. Hazelcast runs a callback registered without an executor on its default one,
   * which on a machine whose common fork-join pool has one thread (2 cores) starts a new thread per callback (a hello
   * storm started 40,000); this callback only hands the outcome to {@code ctx}, so it runs on the thread that
   * completes the future.
   */
  private static <T> Future<T> onContext(CompletionStage<T> stage, Context ctx) {
    Promise<T> promise = Promise.promise();
    stage.whenCompleteAsync((value, err) -> ctx.runOnContext(v -> {
      if (err != null) {
        promise.fail(err);
      } else {
        promise.complete(value);
      }
    }), Runnable::run);
    return promise.future();
  }

  private String seal(String key, JsonObject value) {
    return SealedBox.seal(storeKey, purpose, key, value);
  }

  private Entry open(String key, String stored) {
    return new Entry(key, SealedBox.open(storeKey, purpose, key, stored), stored);
  }

  private Entry tryOpen(String key, String stored) {
    try {
      return open(key, stored);
    } catch (IllegalArgumentException e) {
      // a hub with other keys shares the cluster: its entries are not ours to read
      LOG.warn("shared entry does not open with this hub's store key [map: {}, key: {}]", map.getName(), key);
      return null;
    }
  }

  private final class Listener implements EntryAddedListener<String, String>, EntryUpdatedListener<String, String>,
    EntryRemovedListener<String, String>, EntryExpiredListener<String, String> {
    private final Context ctx;
    private final BiConsumer<String, JsonObject> onChange;
    private final boolean includeOwn;

    Listener(Context ctx, BiConsumer<String, JsonObject> onChange, boolean includeOwn) {
      this.ctx = ctx;
      this.onChange = onChange;
      this.includeOwn = includeOwn;
    }

    @Override
    public void entryAdded(EntryEvent<String, String> e) {
      written(e);
    }

    @Override
    public void entryUpdated(EntryEvent<String, String> e) {
      written(e);
    }

    @Override
    public void entryRemoved(EntryEvent<String, String> e) {
      gone(e);
    }

    @Override
    public void entryExpired(EntryEvent<String, String> e) {
      gone(e);
    }

    private void written(EntryEvent<String, String> e) {
      if (!includeOwn && e.getMember() != null && e.getMember().localMember()) {
        return;
      }
      Entry opened = e.getValue() == null ? null : tryOpen(e.getKey(), e.getValue());
      if (opened != null) {
        ctx.runOnContext(v -> onChange.accept(e.getKey(), opened.value()));
      }
    }

    private void gone(EntryEvent<String, String> e) {
      if (includeOwn || e.getMember() == null || !e.getMember().localMember()) {
        ctx.runOnContext(v -> onChange.accept(e.getKey(), null));
      }
    }
  }
}
