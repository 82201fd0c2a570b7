// What the plugin settings use cases need from storage.

/** A plugin's settings changed through PATCH /api/v1/plugins/{id}: only the changed fields, applied over the config's. */
export interface PluginOverride {
  plugin_id: string;
  settings: Record<string, unknown>;
  updated_at: string;
}

export interface PluginOverridesRepo {
  all(): Promise<PluginOverride[]>;
  /** Inserts or replaces the plugin's override. */
  put(override: PluginOverride): Promise<void>;
}
