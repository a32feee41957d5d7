package dev.baton.api.crd;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A list whose items are unique by {@link #keys()}: {@code x-kubernetes-list-type: map} with
 * {@code x-kubernetes-list-map-keys}. The API server refuses a duplicate key at no CEL cost (a CEL uniqueness loop over
 * the list would cost n² string comparisons), and server-side apply merges the list item by item.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface ListMap {
  /** The item fields that identify an item: scalar; made required unless they have a default. */
  String[] keys() default "name";
}
