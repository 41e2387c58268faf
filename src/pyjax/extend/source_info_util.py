"""pyjax.extend.source_info_util: where equations come from (source lines and name stacks)."""

from pyjax._src.source_info_util import (
    NameStack, SourceInfo, current, current_name_stack, extend_name_stack, new_name_stack, new_source_info,
    register_exclusion, reset_name_stack, set_name_stack, summarize, transform_name_stack, user_context,
)

__all__ = ["NameStack", "SourceInfo", "current", "current_name_stack", "extend_name_stack", "new_name_stack",
           "new_source_info", "register_exclusion", "reset_name_stack", "set_name_stack", "summarize",
           "transform_name_stack", "user_context"]
