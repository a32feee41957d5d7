package dev.baton.api.crd;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A list of scalars without duplicates: {@code x-kubernetes-list-type: set}. The API server refuses a duplicate at no
 * CEL cost, and server-side apply merges the list value by value, so two managers may each add their own entries.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface ListSet {}
