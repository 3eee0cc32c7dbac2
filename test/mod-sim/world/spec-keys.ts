/** The keys of each object in spec "Resources and their fields", in the spec's order. */

function keys(text: string): string[] {
  return text.split(' ');
}

export const ROSTER = keys(
  'platform_id social_id user_profile_id platform_name char_name online squad money gold coins fame_points attributes play_time is_admin last_seen created_at',
);
export const PROFILE = [...ROSTER, 'service_stats', 'skills', 'bases', 'vehicles', 'survival'];
export const ONLINE = keys(
  'platform_id name ping position alive conscious immortal super_jump is_admin money gold fame_points stance item_in_hands',
);
export const IDENTITY = keys('platform_id social_id');
export const OWNER = keys('profile_id name platform_id social_id');
export const MODERATOR = keys('platform_id social_id name');
export const POSITION = keys('x y z');
export const BAN = keys('banned reason permanent expires_at banned_at banned_by');
export const MUTE = keys('muted permanent muted_at duration_minutes channels');
export const VIOLATION = keys(
  'id type action source reason issued_by applied_at expires_at duration_sec metadata',
);
export const SQUAD_ROW = keys('id name score member_limit member_count leader last_active');
export const SQUAD_MEMBER = keys(
  'id profile_id platform_id social_id platform_name char_name rank kills deaths cash bank_money gold fame_points online last_logout',
);
export const SQUAD_SUMMARY = keys(
  'squad_id total_kills total_deaths total_cash total_bank_money total_gold total_fame total_containers total_vehicles member_count',
);
export const BASE = keys('flag_id base_id owner max_elements element_count avg_health position');
export const VEHICLE = keys(
  'entity_id class_name display_name owner health max_health position is_locked lock_type lock_hp is_functional last_access_time item_count',
);
export const CONTAINER = keys(
  'entity_id class_name display_name custom_name owner base_id base_name position is_locked lock_type lock_hp is_buried last_access_time item_count',
);
export const INVENTORY_ITEM = keys(
  'id class name icon health max_health weight is_container is_weapon contents contents_truncated',
);
export const PACK = keys(
  'id name display_name description category price enabled shop_enabled buy_limit image_url created_at updated_at',
);
export const PACK_REF = keys('id name display_name');
export const DELIVERY = keys('id pack player quantity total_price status source error_message delivered_at');
export const CLAIM_CODE = keys(
  'code pack target source status max_uses uses_remaining created_at expires_at delivery_status dm',
);
export const LEDGER = keys(
  'id at player actor asset mode amount balance_before balance_after scope affected_count source reason pack_name',
);
export const CATALOG_ENTRY = keys(
  'verb level target_mode output_mode requires_online direct_spawn_capable args',
);
export const CATALOG_ARG = keys('name type_name description data_type completion required repeating values');
export const HISTORY = keys('at command result actor');
export const SERVICE_STATS_TOTALS = keys('total_kills total_deaths login_streak');
