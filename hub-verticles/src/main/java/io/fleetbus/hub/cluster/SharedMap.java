package io.fleetbus.hub.cluster;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryExpiredListener;
import com.hazelcast.map.listener.EntryRemovedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import io.fleetbus.shared.fault.FaultSwitch;
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
 * <p>
 * Every entry is authenticated and fresh (issue 32): stored as {@code <version>.<box>}, the box sealed with the
 * store key (only hubs hold it: a node or any other member cannot make one) over the map, the key and the version, so
 * an entry copied to another key, or given another version, does not open. A reader takes an entry only when it opens
 * and its version is not older than one seen for that key ({@link EntryVersions}); anything else (junk, another key's
 * entry, another fleet's, a replay) reads as {@link Entry#value() value} null: absent for listings and listeners, and
 * for a compare-and-set the stored form to replace.
 */
public final class SharedMap {
  private static final Logger LOG = LoggerFactory.getLogger(SharedMap.class);

  /**
   * A value and the exact stored form, which a compare-and-set names as the value it expects. {@code value} is null
   * when the stored form is none this hub takes (junk, another key's or fleet's entry, a replay of an older version).
   */
  public record Entry(String key, JsonObject value, String stored) {
  }

  private final IMap<String, String> map;
  private final byte[] storeKey;
  private final String purpose;
  private final long ttlMs;
  private final EntryVersions versions;

  SharedMap(IMap<String, String> map, byte[] storeKey, long ttlMs) {
    this(map, storeKey, ttlMs, new EntryVersions(ttlMs, !FaultSwitch.NO_SHARED_FRESHNESS.on(), System::currentTimeMillis));
  }

  SharedMap(IMap<String, String> map, byte[] storeKey, long ttlMs, EntryVersions versions) {
    this.map = map;
    this.storeKey = storeKey;
    this.purpose = "shared:" + map.getName();
    this.ttlMs = ttlMs;
    this.versions = versions;
  }

  /** This map's first write of a key stands: see {@link EntryVersions#firstWriteWins}. Answers this map. */
  public SharedMap firstWriteWins() {
    versions.firstWriteWins();
    return this;
  }

  /**
   * Tells this map that this hub's own copy (SQLite) holds {@code key} as of {@code version}: a stored entry older than
   * that is a replay. For a hub that starts with no memory of the map's versions.
   */
  public void floor(String key, long version) {
    versions.floor(key, version);
  }

  public String name() {
    return map.getName();
  }

  public Future<Entry> get(Context ctx, String key) {
    return onContext(map.getAsync(key), ctx).map(stored -> stored == null ? null : read(key, stored));
  }

  /** Writes the value (the map's time to live applies); completes once a backup holds it as well. */
  public Future<Void> set(Context ctx, String key, JsonObject value) {
    return setSealed(ctx, key, seal(key, value));
  }

  /**
   * The stored form of a write of {@code value} to this map, for {@link #setSealed}: a caller that picks the map by the
   * size of what it stores seals once. Each call takes the key's next version.
   */
  public String sealed(String key, JsonObject value) {
    return seal(key, value);
  }

  /** Writes a stored form {@link #sealed} made for this map (the map's time to live applies), as {@link #set}. */
  public Future<Void> setSealed(Context ctx, String key, String sealed) {
    return onContext(map.setAsync(key, sealed, ttlMs, TimeUnit.MILLISECONDS), ctx).onSuccess(v -> written(key, sealed));
  }

  /** Writes the value, forgotten {@code ttlMs} after this write (whatever the map's own time to live). */
  public Future<Void> set(Context ctx, String key, JsonObject value, long ttlMs) {
    String sealed = seal(key, value);
    return onContext(map.setAsync(key, sealed, Math.max(1, ttlMs), TimeUnit.MILLISECONDS), ctx)
      .onSuccess(v -> written(key, sealed));
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
    return onContext(map.setAllAsync(sealed), ctx).onSuccess(v -> sealed.forEach(this::written));
  }

  /** Writes the value unless the key is taken; answers the value already there (null when this one was written). */
  public Future<Entry> putIfAbsent(Context ctx, String key, JsonObject value) {
    String sealed = seal(key, value);
    return ctx.owner().executeBlocking(() -> map.putIfAbsent(key, sealed, ttlMs, TimeUnit.MILLISECONDS), false)
      .map(earlier -> {
        if (earlier == null) {
          written(key, sealed);
          return null;
        }
        return read(key, earlier);
      });
  }

  /** Compare-and-set: true when {@code expected} was still the stored value and {@code next} replaced it. */
  public Future<Boolean> replace(Context ctx, Entry expected, JsonObject next) {
    String sealed = seal(expected.key(), next);
    return ctx.owner().executeBlocking(() -> map.replace(expected.key(), expected.stored(), sealed), false)
      .onSuccess(won -> {
        if (won) {
          written(expected.key(), sealed);
        }
      });
  }

  public Future<Void> remove(Context ctx, String key) {
    return onContext(map.removeAsync(key), ctx).mapEmpty();
  }

  /** Every entry this hub takes (startup only: it reads the whole map); junk, foreign and stale ones are skipped. */
  public Future<List<Entry>> entries(Context ctx) {
    return ctx.owner().executeBlocking(() -> {
      List<Entry> out = new ArrayList<>();
      map.entrySet().forEach(e -> {
        Entry opened = read(e.getKey(), e.getValue());
        if (opened.value() != null) {
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

  /** A write of this hub went through: its version is now the newest seen (a write that lost moves no mark). */
  private void written(String key, String sealed) {
    versions.floor(key, Long.parseLong(sealed.substring(0, sealed.indexOf('.'))));
  }

  /** The stored form of a write of {@code value} (for the cost test: sealing with a version, nothing written). */
  String sealForTest(String key, JsonObject value) {
    return seal(key, value);
  }

  private String seal(String key, JsonObject value) {
    long version = versions.next(key);
    return version + "." + SealedBox.seal(storeKey, purpose, key + "#" + version, value);
  }

  /** The entry as this hub takes it: its value, or null (logged) when it is junk, not this key's, or a replay. */
  Entry read(String key, String stored) {
    int dot = stored == null ? -1 : stored.indexOf('.');
    long version;
    JsonObject value;
    try {
      version = Long.parseLong(stored.substring(0, dot));
      value = SealedBox.open(storeKey, purpose, key + "#" + version, stored.substring(dot + 1));
    } catch (RuntimeException e) {
      // junk, another key's entry, or a hub with other keys (another fleet) shares the cluster: not ours to read
      LOG.warn("shared entry refused [map: {}, key: {}, reason: not sealed for this key by a hub of this fleet]",
        map.getName(), key);
      return new Entry(key, null, stored);
    }
    String stale = versions.refusal(key, version);
    if (stale != null) {
      LOG.warn("shared entry refused [map: {}, key: {}, reason: {}]", map.getName(), key, stale);
      return new Entry(key, null, stored);
    }
    return new Entry(key, value, stored);
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
      Entry opened = e.getValue() == null ? null : read(e.getKey(), e.getValue());
      if (opened != null && opened.value() != null) {
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
