//! Placeholder: being written.

use super::{Backend, ChatParams, HttpRequest, Message, ModelInfo};
use crate::completion::Completion;
use crate::errors::JudgeError;

fn unsupported() -> JudgeError {
    JudgeError::Setting {
        message: "not yet".into(),
    }
}

pub fn chat_request(
    _b: &Backend,
    _m: &[Message],
    _p: ChatParams,
) -> Result<HttpRequest, JudgeError> {
    Err(unsupported())
}

pub fn read_response(_s: u16, _r: Option<String>, _body: &str) -> Result<Completion, JudgeError> {
    Err(unsupported())
}

pub fn models_request(_b: &Backend) -> Result<HttpRequest, JudgeError> {
    Err(unsupported())
}

pub fn read_models(_body: &str) -> Result<Vec<ModelInfo>, JudgeError> {
    Err(unsupported())
}
