//! The part of the N-API C ABI (node_api.h, js_native_api.h) that omp uses. The symbols are not
//! linked: the host process (node or bun) provides them when it loads the addon.

#![allow(non_camel_case_types, non_upper_case_globals)]

use std::os::raw::{c_char, c_void};

// Opaque handles, as the C headers declare them (pointers to incomplete structs).
pub enum napi_env__ {}
pub enum napi_value__ {}
pub enum napi_ref__ {}
pub enum napi_handle_scope__ {}
pub enum napi_callback_info__ {}
pub enum napi_deferred__ {}
pub enum napi_async_work__ {}

pub type napi_env = *mut napi_env__;
pub type napi_value = *mut napi_value__;
pub type napi_ref = *mut napi_ref__;
pub type napi_handle_scope = *mut napi_handle_scope__;
pub type napi_callback_info = *mut napi_callback_info__;
pub type napi_deferred = *mut napi_deferred__;
pub type napi_async_work = *mut napi_async_work__;

// C enums are plain integers here: a Rust enum would be undefined behaviour for a value a newer
// host adds.
pub type napi_status = i32;
pub const napi_ok: napi_status = 0;
pub const napi_cancelled: napi_status = 11;

pub type napi_valuetype = i32;
pub const napi_undefined: napi_valuetype = 0;
pub const napi_null: napi_valuetype = 1;
pub const napi_boolean: napi_valuetype = 2;
pub const napi_number: napi_valuetype = 3;
pub const napi_string: napi_valuetype = 4;
pub const napi_symbol: napi_valuetype = 5;
pub const napi_object: napi_valuetype = 6;
pub const napi_function: napi_valuetype = 7;
pub const napi_external: napi_valuetype = 8;
pub const napi_bigint: napi_valuetype = 9;

pub type napi_key_collection_mode = i32;
pub const napi_key_own_only: napi_key_collection_mode = 1;

pub type napi_key_filter = i32;
pub const napi_key_enumerable: napi_key_filter = 1 << 1;
pub const napi_key_skip_symbols: napi_key_filter = 1 << 4;

pub type napi_key_conversion = i32;
pub const napi_key_numbers_to_strings: napi_key_conversion = 1;

#[repr(C)]
pub struct napi_extended_error_info {
    pub error_message: *const c_char,
    pub engine_reserved: *mut c_void,
    pub engine_error_code: u32,
    pub error_code: napi_status,
}

pub type napi_callback = Option<unsafe extern "C" fn(env: napi_env, info: napi_callback_info) -> napi_value>;
pub type napi_finalize = Option<unsafe extern "C" fn(env: napi_env, data: *mut c_void, hint: *mut c_void)>;
pub type napi_async_execute_callback = Option<unsafe extern "C" fn(env: napi_env, data: *mut c_void)>;
pub type napi_async_complete_callback =
    Option<unsafe extern "C" fn(env: napi_env, status: napi_status, data: *mut c_void)>;

extern "C" {
    pub fn napi_get_last_error_info(env: napi_env, result: *mut *const napi_extended_error_info) -> napi_status;

    pub fn napi_get_undefined(env: napi_env, result: *mut napi_value) -> napi_status;
    pub fn napi_get_null(env: napi_env, result: *mut napi_value) -> napi_status;
    pub fn napi_get_boolean(env: napi_env, value: bool, result: *mut napi_value) -> napi_status;
    pub fn napi_create_double(env: napi_env, value: f64, result: *mut napi_value) -> napi_status;
    pub fn napi_create_string_utf8(env: napi_env, s: *const c_char, len: usize, result: *mut napi_value)
        -> napi_status;
    pub fn napi_create_object(env: napi_env, result: *mut napi_value) -> napi_status;
    pub fn napi_create_buffer_copy(
        env: napi_env,
        length: usize,
        data: *const c_void,
        result_data: *mut *mut c_void,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_is_buffer(env: napi_env, value: napi_value, result: *mut bool) -> napi_status;
    pub fn napi_get_buffer_info(env: napi_env, value: napi_value, data: *mut *mut c_void, length: *mut usize) -> napi_status;
    pub fn napi_create_array_with_length(env: napi_env, len: usize, result: *mut napi_value) -> napi_status;
    pub fn napi_create_error(env: napi_env, code: napi_value, msg: napi_value, result: *mut napi_value) -> napi_status;

    pub fn napi_typeof(env: napi_env, value: napi_value, result: *mut napi_valuetype) -> napi_status;
    pub fn napi_is_array(env: napi_env, value: napi_value, result: *mut bool) -> napi_status;
    pub fn napi_get_value_double(env: napi_env, value: napi_value, result: *mut f64) -> napi_status;
    pub fn napi_get_value_bool(env: napi_env, value: napi_value, result: *mut bool) -> napi_status;
    pub fn napi_get_value_string_utf8(
        env: napi_env,
        value: napi_value,
        buf: *mut c_char,
        bufsize: usize,
        result: *mut usize,
    ) -> napi_status;

    pub fn napi_get_named_property(
        env: napi_env,
        object: napi_value,
        name: *const c_char,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_set_named_property(
        env: napi_env,
        object: napi_value,
        name: *const c_char,
        value: napi_value,
    ) -> napi_status;
    pub fn napi_has_named_property(
        env: napi_env,
        object: napi_value,
        name: *const c_char,
        result: *mut bool,
    ) -> napi_status;
    pub fn napi_get_all_property_names(
        env: napi_env,
        object: napi_value,
        key_mode: napi_key_collection_mode,
        key_filter: napi_key_filter,
        key_conversion: napi_key_conversion,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_get_array_length(env: napi_env, value: napi_value, result: *mut u32) -> napi_status;
    pub fn napi_get_element(env: napi_env, object: napi_value, index: u32, result: *mut napi_value) -> napi_status;
    pub fn napi_set_element(env: napi_env, object: napi_value, index: u32, value: napi_value) -> napi_status;

    pub fn napi_create_function(
        env: napi_env,
        name: *const c_char,
        len: usize,
        cb: napi_callback,
        data: *mut c_void,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_get_cb_info(
        env: napi_env,
        info: napi_callback_info,
        argc: *mut usize,
        argv: *mut napi_value,
        this_arg: *mut napi_value,
        data: *mut *mut c_void,
    ) -> napi_status;
    pub fn napi_call_function(
        env: napi_env,
        recv: napi_value,
        func: napi_value,
        argc: usize,
        argv: *const napi_value,
        result: *mut napi_value,
    ) -> napi_status;
    pub fn napi_add_finalizer(
        env: napi_env,
        object: napi_value,
        data: *mut c_void,
        finalize_cb: napi_finalize,
        hint: *mut c_void,
        result: *mut napi_ref,
    ) -> napi_status;

    pub fn napi_create_reference(
        env: napi_env,
        value: napi_value,
        initial_refcount: u32,
        result: *mut napi_ref,
    ) -> napi_status;
    pub fn napi_delete_reference(env: napi_env, reference: napi_ref) -> napi_status;
    pub fn napi_get_reference_value(env: napi_env, reference: napi_ref, result: *mut napi_value) -> napi_status;

    pub fn napi_open_handle_scope(env: napi_env, result: *mut napi_handle_scope) -> napi_status;
    pub fn napi_close_handle_scope(env: napi_env, scope: napi_handle_scope) -> napi_status;

    pub fn napi_throw(env: napi_env, error: napi_value) -> napi_status;
    pub fn napi_is_exception_pending(env: napi_env, result: *mut bool) -> napi_status;
    pub fn napi_get_and_clear_last_exception(env: napi_env, result: *mut napi_value) -> napi_status;

    pub fn napi_create_promise(env: napi_env, deferred: *mut napi_deferred, promise: *mut napi_value) -> napi_status;
    pub fn napi_resolve_deferred(env: napi_env, deferred: napi_deferred, resolution: napi_value) -> napi_status;
    pub fn napi_reject_deferred(env: napi_env, deferred: napi_deferred, rejection: napi_value) -> napi_status;

    pub fn napi_create_async_work(
        env: napi_env,
        async_resource: napi_value,
        async_resource_name: napi_value,
        execute: napi_async_execute_callback,
        complete: napi_async_complete_callback,
        data: *mut c_void,
        result: *mut napi_async_work,
    ) -> napi_status;
    pub fn napi_queue_async_work(env: napi_env, work: napi_async_work) -> napi_status;
    pub fn napi_delete_async_work(env: napi_env, work: napi_async_work) -> napi_status;
}
