/**
 * Custom resources of group {@code baton.dev}, version {@code v1alpha1} (docs/design.md#resources). Plain model classes: no
 * behaviour beyond defaults, so they serialise exactly as users write them.
 */
package dev.baton.api.v1alpha1;
