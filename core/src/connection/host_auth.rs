//! SASL answered by the host, asynchronously: for an authenticator whose steps are user code
//! that cannot run inside the core (the DataStax driver's custom `AuthProvider`). Each step
//! the server sends becomes an [`EventRec::Auth`]; the connection waits in `Authenticating`
//! (under the handshake deadline) until [`Connection::auth_answer`] gives the next token.

use super::{CloseReason, Connection, EventRec, State};

/// One step of the server's SASL exchange, for the host to answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthStep {
    /// AUTHENTICATE: the server's authenticator class; answer with the initial response.
    Start { authenticator_class: String },
    /// AUTH_CHALLENGE: answer with the response to `token`.
    Challenge { token: Option<Vec<u8>> },
    /// AUTH_SUCCESS, with its final token: nothing to answer, the handshake goes on.
    Success { token: Option<Vec<u8>> },
}

impl Connection {
    /// The server asked for a SASL step that the host answers.
    pub(super) fn ask_host(&mut self, step: AuthStep) {
        self.awaiting_auth_answer = !matches!(step, AuthStep::Success { .. });
        self.state = State::Authenticating;
        self.events.push_back(EventRec::Auth(step));
    }

    /// The host's answer to the last [`AuthStep::Start`] or [`AuthStep::Challenge`]: the token
    /// to send, or why its authenticator failed (the connection then closes with an
    /// authentication error). An answer nobody asked for (late, after a close) is ignored.
    pub fn auth_answer(&mut self, answer: Result<&[u8], &str>) {
        self.begin_call();
        if self.state != State::Authenticating || !self.awaiting_auth_answer {
            return;
        }
        self.awaiting_auth_answer = false;
        match answer {
            Ok(token) => self.send_auth_token(token),
            Err(e) => self.close(CloseReason::Auth { message: format!("authenticator failed: {e}"), code: None }),
        }
    }
}
