//! The evaluator's inputs: the task, the judged text, the question and references, and the
//! image (its file, its decoded pixels to re-encode when the red box moves, what is shown).

use leptos::prelude::*;

use crate::inputs::geometry::NormBox;
use crate::providers::Image;
use crate::scoring::task::Task;
use crate::web::image::LoadedImage;

/// What the shown image is: the data URL as it will be sent, and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct ImageView {
    pub data_url: String,
    pub file_name: String,
    pub original_size: (u32, u32),
    pub sent_size: (u32, u32),
    /// A video's three-frame composite (G-VEval), not a photo.
    pub is_video: bool,
    /// An animation's first frame, a file cut short.
    pub note: Option<&'static str>,
}

impl ImageView {
    /// The image as a metric sends it (`None` if the shown URL is not a base64 data URL).
    pub fn sent(&self) -> Option<Image> {
        Image::from_data_url(&self.data_url)
    }
}

#[derive(Clone, Copy)]
pub struct Inputs {
    pub task: RwSignal<Task>,
    pub text: RwSignal<String>,
    pub question: RwSignal<String>,
    /// RefFLEUR's (and G-VEval's) reference captions, one per line.
    pub references: RwSignal<String>,
    /// The file the image came from, so a new size limit can re-process it.
    pub image_file: StoredValue<Option<web_sys::File>, LocalStorage>,
    pub image: StoredValue<Option<LoadedImage>, LocalStorage>,
    pub image_view: RwSignal<Option<ImageView>>,
    pub image_error: RwSignal<Option<String>>,
    pub image_loading: RwSignal<bool>,
    pub red_box: RwSignal<Option<NormBox>>,
}

impl Inputs {
    /// An empty form.
    pub fn new() -> Inputs {
        Inputs {
            task: RwSignal::new(Task::Ic),
            text: RwSignal::new(String::new()),
            question: RwSignal::new(String::new()),
            references: RwSignal::new(String::new()),
            image_file: StoredValue::new_local(None),
            image: StoredValue::new_local(None),
            image_view: RwSignal::new(None),
            image_error: RwSignal::new(None),
            image_loading: RwSignal::new(false),
            red_box: RwSignal::new(None),
        }
    }

    /// Whether the current file is a video.
    pub fn has_video(&self) -> bool {
        self.image_view
            .with(|v| v.as_ref().is_some_and(|v| v.is_video))
    }

    /// [`Inputs::has_video`], untracked.
    pub fn has_video_untracked(&self) -> bool {
        self.image_view
            .with_untracked(|v| v.as_ref().is_some_and(|v| v.is_video))
    }
}
